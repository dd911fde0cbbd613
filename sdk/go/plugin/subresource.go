package plugin

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// statusWriter is Status(): the job's status becomes the answer's.
type statusWriter struct{ c *memClient }

func (w statusWriter) Create(ctx context.Context, obj client.Object, sub client.Object,
	opts ...client.SubResourceCreateOption) error {
	return fmt.Errorf("Status().Create of %s: there is no such call on a status", obj.GetName())
}

func (w statusWriter) Update(ctx context.Context, obj client.Object,
	opts ...client.SubResourceUpdateOption) error {
	return w.c.update("Status().Update", obj, true)
}

func (w statusWriter) Patch(ctx context.Context, obj client.Object, patch client.Patch,
	opts ...client.SubResourcePatchOption) error {
	return w.c.patch("Status().Patch", obj, patch, true)
}

// subResource is SubResource(name): "status" is Status(); the simulator has no other.
type subResource struct {
	c    *memClient
	name string
}

func (s subResource) Get(ctx context.Context, obj client.Object, sub client.Object,
	opts ...client.SubResourceGetOption) error {
	return fmt.Errorf("SubResource(%q).Get: the simulator has no such subresource", s.name)
}

func (s subResource) Create(ctx context.Context, obj client.Object, sub client.Object,
	opts ...client.SubResourceCreateOption) error {
	return fmt.Errorf("SubResource(%q).Create: the simulator has no such subresource", s.name)
}

func (s subResource) Update(ctx context.Context, obj client.Object,
	opts ...client.SubResourceUpdateOption) error {
	if s.name != "status" {
		return fmt.Errorf("SubResource(%q).Update: the simulator has no such subresource", s.name)
	}
	return statusWriter{s.c}.Update(ctx, obj, opts...)
}

func (s subResource) Patch(ctx context.Context, obj client.Object, patch client.Patch,
	opts ...client.SubResourcePatchOption) error {
	if s.name != "status" {
		return fmt.Errorf("SubResource(%q).Patch: the simulator has no such subresource", s.name)
	}
	return statusWriter{s.c}.Patch(ctx, obj, patch, opts...)
}

// indexer registers field indexes for List's field selectors.
type indexer struct{ s *Server }

func (i indexer) IndexField(ctx context.Context, obj client.Object, field string,
	extract client.IndexerFunc) error {
	gvk, err := i.s.client.gvkOf(obj)
	if err != nil {
		return err
	}
	if i.s.indexes[gvk] == nil {
		i.s.indexes[gvk] = map[string]client.IndexerFunc{}
	}
	i.s.indexes[gvk][field] = extract
	return nil
}
