package webauth

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// apiserver is a fake that knows two tokens (alice's, bob's) and lets
// alice get /metrics and /api/v1/*; it counts the reviews it answers.
type apiserver struct {
	tokenReviews, accessReviews atomic.Int32
	down                        atomic.Bool
}

func (a *apiserver) client() *fake.Clientset {
	c := fake.NewClientset()
	c.PrependReactor("create", "tokenreviews", func(act k8stesting.Action) (bool, runtime.Object, error) {
		a.tokenReviews.Add(1)
		if a.down.Load() {
			return true, nil, errors.New("connection refused")
		}
		tr := act.(k8stesting.CreateAction).GetObject().(*authnv1.TokenReview).DeepCopy()
		switch tr.Spec.Token {
		case "alice-token":
			tr.Status = authnv1.TokenReviewStatus{Authenticated: true, User: authnv1.UserInfo{Username: "alice", Groups: []string{"team"}}}
		case "bob-token":
			tr.Status = authnv1.TokenReviewStatus{Authenticated: true, User: authnv1.UserInfo{Username: "bob"}}
		}
		return true, tr, nil
	})
	c.PrependReactor("create", "subjectaccessreviews", func(act k8stesting.Action) (bool, runtime.Object, error) {
		a.accessReviews.Add(1)
		if a.down.Load() {
			return true, nil, errors.New("connection refused")
		}
		sar := act.(k8stesting.CreateAction).GetObject().(*authzv1.SubjectAccessReview).DeepCopy()
		nr := sar.Spec.NonResourceAttributes
		sar.Status.Allowed = sar.Spec.User == "alice" && nr != nil && nr.Verb == "get" &&
			(nr.Path == "/metrics" || strings.HasPrefix(nr.Path, "/api/v1/"))
		if !sar.Status.Allowed {
			sar.Status.Reason = "no RBAC rule"
		}
		return true, sar, nil
	})
	return c
}

var ok = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("served")) })

func do(h http.Handler, method, path, token, remote string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, nil)
	if token != "" {
		req.Header.Set("Authorization", token)
	}
	if remote != "" {
		req.RemoteAddr = remote
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func TestWrapAnswers(t *testing.T) {
	api := &apiserver{}
	a, err := New(Options{Client: api.client()})
	if err != nil {
		t.Fatal(err)
	}
	h := a.Wrap(ok)
	for _, c := range []struct {
		name, method, path, auth, remote string
		code                             int
		body                             string
	}{
		{"probe without a token", "GET", "/healthz", "", "", 200, "served"},
		{"readyz without a token", "GET", "/readyz", "", "", 200, "served"},
		{"livez without a token", "GET", "/livez", "", "", 200, "served"},
		{"no token", "GET", "/metrics", "", "", 401, "send a Kubernetes bearer token"},
		{"not a bearer token", "GET", "/metrics", "Basic YTpi", "", 401, "send a Kubernetes bearer token"},
		{"empty bearer", "GET", "/metrics", "Bearer ", "", 401, "send a Kubernetes bearer token"},
		{"unknown token", "GET", "/metrics", "Bearer mallory", "", 401, "did not accept this token"},
		{"loopback is not trusted by default", "GET", "/metrics", "", "127.0.0.1:5555", 401, "bearer token"},
		{"allowed", "GET", "/metrics", "Bearer alice-token", "", 200, "served"},
		{"allowed, scheme in lower case", "GET", "/api/v1/jobs", "bearer alice-token", "", 200, "served"},
		{"HEAD is get", "HEAD", "/api/v1/jobs", "Bearer alice-token", "", 200, ""},
		{"path not granted", "GET", "/", "Bearer alice-token", "", 403, `user "alice" may not get path "/": no RBAC rule`},
		{"verb not granted", "POST", "/metrics", "Bearer alice-token", "", 403, `may not post path "/metrics"`},
		{"user without RBAC", "GET", "/metrics", "Bearer bob-token", "", 403, `user "bob" may not get path "/metrics"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := do(h, c.method, c.path, c.auth, c.remote)
			if w.Code != c.code || !strings.Contains(w.Body.String(), c.body) {
				t.Errorf("%s %s: %d %q, want %d containing %q", c.method, c.path, w.Code, w.Body, c.code, c.body)
			}
			if w.Code == 401 && w.Header().Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		})
	}
}

func TestTrustLoopback(t *testing.T) {
	api := &apiserver{}
	a, err := New(Options{Client: api.client(), TrustLoopback: true})
	if err != nil {
		t.Fatal(err)
	}
	h := a.Wrap(ok)
	for remote, code := range map[string]int{"127.0.0.1:4000": 200, "127.9.9.9:4000": 200, "[::1]:4000": 200,
		"10.1.2.3:4000": 401, "[fd00::1]:4000": 401, "garbage": 401} {
		if w := do(h, "GET", "/api/v1/jobs", "", remote); w.Code != code {
			t.Errorf("from %s without a token: %d, want %d", remote, w.Code, code)
		}
	}
	if n := api.tokenReviews.Load() + api.accessReviews.Load(); n != 0 {
		t.Errorf("%d reviews for loopback and tokenless requests, want 0", n)
	}
}

// Answers are reused within the TTL, asked again after it, and an
// apiserver that cannot answer gives 503, not a cached refusal.
func TestCache(t *testing.T) {
	api := &apiserver{}
	now := time.Unix(1000, 0)
	a, err := New(Options{Client: api.client(), TTL: 10 * time.Second, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	h := a.Wrap(ok)
	for range 5 {
		if w := do(h, "GET", "/metrics", "Bearer alice-token", ""); w.Code != 200 {
			t.Fatalf("allowed request: %d", w.Code)
		}
		if w := do(h, "GET", "/metrics", "Bearer bob-token", ""); w.Code != 403 {
			t.Fatalf("refused request: %d", w.Code)
		}
		if w := do(h, "GET", "/metrics", "Bearer mallory", ""); w.Code != 401 {
			t.Fatalf("unknown token: %d", w.Code)
		}
	}
	if tr, sar := api.tokenReviews.Load(), api.accessReviews.Load(); tr != 3 || sar != 2 {
		t.Errorf("within the TTL: %d TokenReviews and %d SubjectAccessReviews, want 3 and 2", tr, sar)
	}
	now = now.Add(10 * time.Second)
	do(h, "GET", "/metrics", "Bearer alice-token", "")
	if tr, sar := api.tokenReviews.Load(), api.accessReviews.Load(); tr != 4 || sar != 3 {
		t.Errorf("after the TTL: %d TokenReviews and %d SubjectAccessReviews, want 4 and 3", tr, sar)
	}
	now = now.Add(time.Minute)
	api.down.Store(true)
	if w := do(h, "GET", "/metrics", "Bearer alice-token", ""); w.Code != 503 || !strings.Contains(w.Body.String(), "TokenReview") {
		t.Errorf("apiserver down: %d %q, want 503 naming the TokenReview", w.Code, w.Body)
	}
	api.down.Store(false)
	if w := do(h, "GET", "/metrics", "Bearer alice-token", ""); w.Code != 200 {
		t.Errorf("apiserver back: %d, want 200 (the failure was not cached)", w.Code)
	}
}

// A flood of distinct tokens never grows the cache past its bound.
func TestCacheIsBounded(t *testing.T) {
	api := &apiserver{}
	a, err := New(Options{Client: api.client()})
	if err != nil {
		t.Fatal(err)
	}
	h := a.Wrap(ok)
	for i := range maxEntries + 100 {
		do(h, "GET", "/metrics", "Bearer t"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+time.Duration(i).String(), "")
	}
	a.mu.Lock()
	n := len(a.users)
	a.mu.Unlock()
	if n > maxEntries {
		t.Errorf("%d cached tokens, bound %d", n, maxEntries)
	}
}

func TestNewNeedsAClient(t *testing.T) {
	if _, err := New(Options{}); err == nil {
		t.Error("New without a client succeeded")
	}
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{"127.0.0.1:10261": true, "localhost:1": true, "[::1]:1": true, "127.1.2.3:9": true,
		"0.0.0.0:10261": false, ":10261": false, "[::]:1": false, "10.0.0.1:1": false, "example.com:1": false, "nonsense": false} {
		if got := IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

func TestSelfSignedServesTLS(t *testing.T) {
	cfg, err := SelfSigned()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(ok)
	srv.TLS = cfg
	srv.StartTLS()
	defer srv.Close()
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: srv.Client().Transport.(*http.Transport).TLSClientConfig}}
	c.Transport.(*http.Transport).TLSClientConfig.InsecureSkipVerify = true
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.TLS == nil || len(resp.TLS.PeerCertificates) != 1 || resp.TLS.PeerCertificates[0].DNSNames[0] != "localhost" {
		t.Errorf("TLS state %+v", resp.TLS)
	}
}

// The JSON API is authorized under /spindle, out of reach of RBAC's
// built-in grant of /api/* to every authenticated user.
func TestAPIPath(t *testing.T) {
	for in, want := range map[string]string{"/api/v1/jobs": "/spindle/api/v1/jobs", "/api": "/spindle/api", "/api/": "/spindle/api/",
		"/metrics": "/metrics", "/": "/", "/ui/app.js": "/ui/app.js", "/apis/x": "/apis/x", "/apiary": "/apiary"} {
		if got := APIPath(in); got != want {
			t.Errorf("APIPath(%q) = %q, want %q", in, got, want)
		}
	}
	api := &apiserver{}
	a, err := New(Options{Client: api.client(), AuthorizedPath: APIPath})
	if err != nil {
		t.Fatal(err)
	}
	// The fake grants alice /api/v1/*, not /spindle/api/v1/*: refused, and
	// the refusal names the path that was asked about.
	w := do(a.Wrap(ok), "GET", "/api/v1/jobs", "Bearer alice-token", "")
	if w.Code != 403 || !strings.Contains(w.Body.String(), `"/spindle/api/v1/jobs"`) {
		t.Errorf("GET /api/v1/jobs: %d %q, want 403 naming /spindle/api/v1/jobs", w.Code, w.Body)
	}
}
