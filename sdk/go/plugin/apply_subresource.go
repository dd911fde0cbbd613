//go:build !t9ksim_no_subresource_apply

// Server-side apply of a subresource, which the simulator does not serve. SubResourceWriter has
// Apply from controller-runtime v0.23; older ones build with the tag t9ksim_no_subresource_apply
// (t9ksim-go sets it from the module's controller-runtime version).

package plugin

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func (w statusWriter) Apply(ctx context.Context, obj runtime.ApplyConfiguration,
	opts ...client.SubResourceApplyOption) error {
	return fmt.Errorf("Status().Apply: server-side apply is not supported by the t9ksim client")
}

func (s subResource) Apply(ctx context.Context, obj runtime.ApplyConfiguration,
	opts ...client.SubResourceApplyOption) error {
	return fmt.Errorf("SubResource(%q).Apply: server-side apply is not supported", s.name)
}
