package dress

import (
	"testing"

	"github.com/spindle-sched/spindle/resource"
)

func TestMeter(t *testing.T) {
	m := newMeter(resource.New(100, 800*1024))
	tests := []struct {
		name string
		req  resource.Vector
		want int64 // -1: only the fit property is checked
	}{
		{"a 1-vcore container is 1 % of 100 vcores", resource.New(1, 2048), Total / 100},
		{"memory dominates a 1-vcore, 16 GB container", resource.New(1, 16*1024), Total / 50},
		{"the whole cluster", resource.New(100, 800*1024), Total},
		{"a tiny container", resource.Vector{resource.VCores: 1}, -1},
		{"an odd share", resource.New(3, 7*1024), -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := m.size(tt.req)
			if (tt.want >= 0 && got != tt.want) || got <= 0 {
				t.Fatalf("size %d, want %d", got, tt.want)
			}
			// A request fits room(u) exactly when its size is at most u,
			// so pool limits in units are enforced by vector fits.
			for _, u := range []int64{got - 1, got, got + 1, Total / 3, Total} {
				if u < 0 {
					continue
				}
				if fits := tt.req.Fits(m.room(u)); fits != (got <= u) {
					t.Errorf("u=%d: fits room %v, size %d", u, fits, got)
				}
			}
		})
	}
	if s := m.size(resource.New(101, 1024)); s <= Total {
		t.Errorf("a request larger than the cluster has size %d, within the cluster's %d", s, Total)
	}
	// units is what still fits in a free vector: its tightest dimension.
	for _, tt := range []struct {
		free resource.Vector
		want int64
	}{
		{resource.New(10, 600*1024), Total / 10},
		{resource.New(50, 80*1024), Total / 10},
		{resource.New(100, 800*1024), Total},
		{resource.Vector{}, 0},
	} {
		if u := m.units(tt.free); u != tt.want {
			t.Errorf("units(%v) = %d, want %d", tt.free, u, tt.want)
		}
	}
}
