// Package prefetch asks the processor to bring memory into cache ahead of
// its use, without waiting for it.
//
// A load the program does not need yet still stalls the processor when it
// misses cache: the load cannot retire, and the work behind it piles up
// until the processor's window is full. A prefetch instruction is a hint
// that retires at once, so the miss overlaps whatever the program does next.
// Go has no portable way to issue one; this package does it in assembly
// where it can, and does nothing elsewhere. A hint changes no result.
package prefetch
