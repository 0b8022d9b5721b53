package cli

import (
	"runtime/debug"
	"testing"
)

func TestSetGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, tt := range []struct {
		name    string
		env     string // GOGC
		pct     int
		given   bool
		want    int // the collector's percent afterwards
		wantErr bool
	}{
		{name: "default", pct: defaultGCPercent, want: defaultGCPercent},
		{name: "GOGC kept over the default", env: "80", pct: defaultGCPercent, want: 100},
		{name: "flag over GOGC", env: "80", pct: 60, given: true, want: 60},
		{name: "flag alone", pct: 200, given: true, want: 200},
		{name: "zero refused", pct: 0, given: true, want: 100, wantErr: true},
		{name: "negative refused", pct: -1, given: true, want: 100, wantErr: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GOGC", tt.env)
			debug.SetGCPercent(100)
			f := runFlags{gcPercent: tt.pct, gcGiven: func() bool { return tt.given }}
			err := f.setGC()
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if got := debug.SetGCPercent(100); got != tt.want {
				t.Errorf("GC percent %d, want %d", got, tt.want)
			}
		})
	}
	// Flags not registered (sweep builds runFlags itself): nothing changes.
	debug.SetGCPercent(100)
	if err := (&runFlags{}).setGC(); err != nil {
		t.Fatal(err)
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("unregistered flags changed the GC percent to %d", got)
	}
}
