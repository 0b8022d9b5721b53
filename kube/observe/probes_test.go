package observe

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The probe listener answers the probes and nothing else: no metrics, no
// API, no page, for the kubelet reaches it without credentials.
func TestProbeHandlerServesOnlyProbes(t *testing.T) {
	r := NewRecorder(Options{})
	r.SetRole(RoleSolo)
	h := r.ProbeHandler()
	get := func(path string) (int, string) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		return w.Code, w.Body.String()
	}
	for _, p := range []string{"/healthz", "/livez"} {
		if code, body := get(p); code != 200 || body != "ok\n" {
			t.Errorf("%s: %d %q", p, code, body)
		}
	}
	if code, body := get("/readyz"); code != 503 || !strings.HasPrefix(body, "not ready") {
		t.Errorf("/readyz before sync: %d %q, want 503", code, body)
	}
	r.SetSynced(true)
	if code, _ := get("/readyz"); code != 200 {
		t.Errorf("/readyz after sync: %d, want 200", code)
	}
	for _, p := range []string{"/metrics", "/api/v1/jobs", "/api/v1/decisions", "/", "/ui/app.js"} {
		if code, _ := get(p); code != 404 {
			t.Errorf("%s on the probe handler: %d, want 404", p, code)
		}
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/healthz", nil))
	if w.Code != 405 {
		t.Errorf("POST /healthz: %d, want 405", w.Code)
	}
	// The full handler still answers /livez beside /healthz.
	w = httptest.NewRecorder()
	r.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/livez", nil))
	if w.Code != 200 {
		t.Errorf("/livez on the full handler: %d", w.Code)
	}
}
