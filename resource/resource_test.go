package resource

import (
	"math"
	"testing"
)

func TestVectorArithmetic(t *testing.T) {
	a := Vector{VCores: 2000, Memory: 4096, GPU: 1, Disk: 10}
	b := Vector{VCores: 500, Memory: 1024}
	tests := []struct {
		name string
		got  Vector
		want Vector
	}{
		{"add", a.Add(b), Vector{2500, 5120, 1, 10}},
		{"sub", a.Sub(b), Vector{1500, 3072, 1, 10}},
		{"sub below zero", b.Sub(a), Vector{-1500, -3072, -1, -10}},
		{"mul", b.Mul(3), Vector{1500, 3072, 0, 0}},
		{"min", a.Min(Vector{3000, 1000, 0, 20}), Vector{2000, 1000, 0, 10}},
		{"max", a.Max(Vector{3000, 1000, 0, 20}), Vector{3000, 4096, 1, 20}},
		{"new", New(3, 2048), Vector{3000, 2048, 0, 0}},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

func TestFits(t *testing.T) {
	free := Vector{VCores: 2000, Memory: 4096, GPU: 1, Disk: 100}
	tests := []struct {
		req  Vector
		want bool
	}{
		{Vector{}, true},
		{Vector{2000, 4096, 1, 100}, true},
		{Vector{2001, 1, 0, 0}, false},
		{Vector{1, 4097, 0, 0}, false},
		{Vector{1, 1, 2, 0}, false},
		{Vector{1, 1, 0, 101}, false},
		{Vector{-5, 0, 0, 0}, true},
	}
	for _, tt := range tests {
		if got := tt.req.Fits(free); got != tt.want {
			t.Errorf("%v.Fits(%v) = %v, want %v", tt.req, free, got, tt.want)
		}
	}
}

func TestShares(t *testing.T) {
	capacity := Vector{VCores: 9000, Memory: 18 * 1024}
	tests := []struct {
		name     string
		v        Vector
		dominant float64
		memory   float64
	}{
		{"nothing", Vector{}, 0, 0},
		{"cpu dominant", Vector{VCores: 3000, Memory: 1024}, 1.0 / 3, 1.0 / 18},
		{"memory dominant", Vector{VCores: 1000, Memory: 4096}, 4.0 / 18, 4.0 / 18},
		{"dimension the cluster lacks is ignored", Vector{VCores: 900, GPU: 4}, 0.1, 0},
	}
	for _, tt := range tests {
		if got := tt.v.DominantShare(capacity); math.Abs(got-tt.dominant) > 1e-12 {
			t.Errorf("%s: dominant share %v, want %v", tt.name, got, tt.dominant)
		}
		if got := tt.v.Share(Memory, capacity); math.Abs(got-tt.memory) > 1e-12 {
			t.Errorf("%s: memory share %v, want %v", tt.name, got, tt.memory)
		}
	}
}

func TestPredicatesAndFormatting(t *testing.T) {
	tests := []struct {
		v        Vector
		zero     bool
		negative bool
		str      string
	}{
		{Vector{}, true, false, "<0 vcores, 0 MiB>"},
		{New(2, 4096), false, false, "<2 vcores, 4096 MiB>"},
		{Vector{VCores: 250, Memory: 512, GPU: 1, Disk: 100}, false, false, "<0.25 vcores, 512 MiB, 1 gpus, 100 MiB disk>"},
		{Vector{VCores: -1500}, false, true, "<-1.5 vcores, 0 MiB>"},
	}
	for _, tt := range tests {
		if tt.v.IsZero() != tt.zero || tt.v.AnyNegative() != tt.negative || tt.v.String() != tt.str {
			t.Errorf("%#v: IsZero %v AnyNegative %v String %q; want %v %v %q", tt.v, tt.v.IsZero(), tt.v.AnyNegative(), tt.v.String(), tt.zero, tt.negative, tt.str)
		}
	}
	if got := New(3, 0).VCoresFloat(); got != 3 {
		t.Errorf("VCoresFloat = %v, want 3", got)
	}
	if VCores.Name() != "vcores" || Memory.Name() != "memory_mb" {
		t.Errorf("dimension names %q %q", VCores.Name(), Memory.Name())
	}
}

func TestCountIn(t *testing.T) {
	tests := []struct {
		v, c Vector
		want int
	}{
		{New(1, 1024), New(4, 8192), 4},
		{New(2, 1024), New(5, 8192), 2},
		{New(1, 4096), New(8, 8192), 2},
		{New(3, 1024), New(2, 8192), 0},
		{Vector{}, New(4, 8192), 0},
		{Vector{GPU: 1}, Vector{GPU: 3, VCores: 1}, 3},
	}
	for _, tt := range tests {
		if got := tt.v.CountIn(tt.c); got != tt.want {
			t.Errorf("%v.CountIn(%v) = %d, want %d", tt.v, tt.c, got, tt.want)
		}
	}
}
