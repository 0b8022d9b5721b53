package clock

import "testing"

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want Duration
		bad  bool
	}{
		{in: "30s", want: 30 * Second},
		{in: "1.5s", want: 1500 * Millisecond},
		{in: "2m", want: 2 * Minute},
		{in: "1h30m", want: 90 * Minute},
		{in: "250ms", want: 250 * Millisecond},
		{in: "1ns", want: 0},
		{in: "500ns", want: 1},
		{in: "1499ns", want: 1},
		{in: "30", want: 30 * Second},
		{in: "0.000001", want: 1},
		{in: "-2s", want: -2 * Second},
		{in: "", bad: true},
		{in: "3 s", bad: true},
		{in: "1e400", bad: true},
		{in: "NaN", bad: true},
		{in: "ten", bad: true},
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		if tt.bad {
			if err == nil {
				t.Errorf("ParseDuration(%q) = %v, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestTimeArithmetic(t *testing.T) {
	t0 := Time(5 * Second)
	if got := t0.Add(1500 * Millisecond); got != Time(6500*Millisecond) {
		t.Errorf("Add: %v", got)
	}
	if got := Time(7 * Second).Sub(t0); got != 2*Second {
		t.Errorf("Sub: %v", got)
	}
	if t0.Seconds() != 5 || (1500*Millisecond).Seconds() != 1.5 {
		t.Errorf("Seconds: %v %v", t0.Seconds(), (1500 * Millisecond).Seconds())
	}
	if s := (90 * Second).String(); s != "1m30s" {
		t.Errorf("String: %q", s)
	}
	if d, ok := FromSeconds(0.0000014); !ok || d != 1 {
		t.Errorf("FromSeconds rounds to the microsecond: %v %v", d, ok)
	}
	if _, ok := FromSeconds(1e300); ok {
		t.Errorf("FromSeconds accepted an overflow")
	}
}
