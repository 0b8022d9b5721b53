//go:build amd64 || arm64

package prefetch

import "unsafe"

// Line hints that the cache line holding *p will be read soon. p may be
// nil or point anywhere: a prefetch never faults.
//
//go:noescape
func Line(p unsafe.Pointer)
