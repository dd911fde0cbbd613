//go:build !t9ksim_no_client_apply

// Server-side apply, which the simulator does not serve. client.Writer has Apply from
// controller-runtime v0.22; a controller built against an older one builds the SDK with the tag
// t9ksim_no_client_apply (t9ksim-go sets it from the module's controller-runtime version).

package plugin

import (
	"context"
	"errors"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func (c *memClient) Apply(ctx context.Context, obj runtime.ApplyConfiguration,
	opts ...client.ApplyOption) error {
	return errors.New("Apply: server-side apply is not supported by the t9ksim client")
}
