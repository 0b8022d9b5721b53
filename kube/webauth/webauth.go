// Package webauth puts the scheduler's HTTP side (metrics, the JSON API,
// the status page) behind the cluster's own authentication and
// authorization, as kube-scheduler does for its secure port: a request's
// bearer token is checked with a TokenReview, and the user it names must be
// allowed to "get" the request's path by a SubjectAccessReview on a
// non-resource URL. Answers are cached for a few seconds, as
// kube-scheduler's delegating authenticator and authorizer cache them, so a
// scraper polling every second costs the apiserver two calls per TTL, not
// two per request.
//
// It calls the authentication/v1 and authorization/v1 APIs directly with
// client-go; k8s.io/apiserver's delegating options do the same with much
// more machinery (request headers, client certificates, configuration
// files) that a secondary scheduler does not need.
package webauth

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// DefaultTTL is how long an answer of the apiserver is reused: 10 s, the
// default of kube-scheduler's --authentication-token-webhook-cache-ttl
// and --authorization-webhook-cache-authorized-ttl and -unauthorized-ttl.
const DefaultTTL = 10 * time.Second

// maxEntries bounds each cache: past it, expired entries are dropped, and
// when none has expired the cache starts afresh. A flood of made-up tokens
// then costs the apiserver calls, never this process's memory.
const maxEntries = 4096

// AlwaysAllow are the paths served without a token: the probes, as
// kube-scheduler's --authorization-always-allow-paths does by default.
var AlwaysAllow = []string{"/healthz", "/readyz", "/livez"}

// Options configure an Authorizer.
type Options struct {
	// Client calls TokenReview and SubjectAccessReview; its identity needs
	// create on tokenreviews (authentication.k8s.io) and
	// subjectaccessreviews (authorization.k8s.io).
	Client kubernetes.Interface
	// TTL is how long answers are cached (DefaultTTL when zero).
	TTL time.Duration
	// AlwaysAllow are paths served to anyone (AlwaysAllow when nil; an
	// empty, non-nil slice allows none).
	AlwaysAllow []string
	// TrustLoopback serves requests from a loopback address without a
	// token. In a pod's network namespace only the container itself and
	// `kubectl port-forward` (which the cluster's RBAC already authorized:
	// pods/portforward) reach 127.0.0.1.
	TrustLoopback bool
	// AuthorizedPath maps a request's path to the non-resource path the
	// SubjectAccessReview asks about (nil: the path itself). See APIPath.
	AuthorizedPath func(string) string
	// Now is the clock for the caches; tests replace it.
	Now func() time.Time
}

// APIPrefix is put before the JSON API's paths when they are authorized
// (APIPath): RBAC's built-in system:discovery role lets every
// authenticated user get /api/* (the apiserver's own discovery paths), so
// authorizing spindle's /api/v1/jobs as itself would let anyone with a
// token read it. As /spindle/api/v1/jobs it is granted only by a role that
// names it (spindle-status-reader in deploy/rbac.yaml).
const APIPrefix = "/spindle"

// APIPath is the AuthorizedPath spindle uses: /api/... becomes
// /spindle/api/...; every other path is itself.
func APIPath(path string) string {
	if path == "/api" || strings.HasPrefix(path, "/api/") {
		return APIPrefix + path
	}
	return path
}

// Authorizer authenticates and authorizes HTTP requests against the
// apiserver. It is safe for concurrent use.
type Authorizer struct {
	o      Options
	mu     sync.Mutex
	users  map[[32]byte]userEntry
	grants map[grantKey]grantEntry
}

type userEntry struct {
	user    *authnv1.UserInfo // nil: the token was refused
	expires time.Time
}

type grantKey struct {
	user, path, verb string
	groups           string // joined, in order
	uid              string
	extra            string
}

type grantEntry struct {
	allowed bool
	reason  string
	expires time.Time
}

// New returns an Authorizer; it fails without a client.
func New(o Options) (*Authorizer, error) {
	if o.Client == nil {
		return nil, errors.New("webauth: no Kubernetes client")
	}
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if o.AlwaysAllow == nil {
		o.AlwaysAllow = AlwaysAllow
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Authorizer{o: o, users: map[[32]byte]userEntry{}, grants: map[grantKey]grantEntry{}}, nil
}

// Wrap serves h only to requests the apiserver authenticates and
// authorizes: 401 without a valid bearer token, 403 when the user may not
// get the path, 503 when the apiserver cannot be asked.
func (a *Authorizer) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if a.allowedWithoutToken(req) {
			h.ServeHTTP(w, req)
			return
		}
		token, ok := bearer(req)
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="spindle"`)
			http.Error(w, "unauthorized: send a Kubernetes bearer token (Authorization: Bearer ...)", http.StatusUnauthorized)
			return
		}
		user, err := a.authenticate(req.Context(), token)
		if err != nil {
			http.Error(w, "cannot authenticate: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		if user == nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="spindle", error="invalid_token"`)
			http.Error(w, "unauthorized: the apiserver did not accept this token", http.StatusUnauthorized)
			return
		}
		verb := verbOf(req.Method)
		path := req.URL.Path
		if a.o.AuthorizedPath != nil {
			path = a.o.AuthorizedPath(path)
		}
		ok, why, err := a.authorize(req.Context(), user, path, verb)
		if err != nil {
			http.Error(w, "cannot authorize: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		if !ok {
			msg := fmt.Sprintf("forbidden: user %q may not %s path %q", user.Username, verb, path)
			if why != "" {
				msg += ": " + why
			}
			http.Error(w, msg, http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, req)
	})
}

func (a *Authorizer) allowedWithoutToken(req *http.Request) bool {
	for _, p := range a.o.AlwaysAllow {
		if req.URL.Path == p {
			return true
		}
	}
	if !a.o.TrustLoopback {
		return false
	}
	host, _, err := net.SplitHostPort(req.RemoteAddr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// bearer returns the request's bearer token.
func bearer(req *http.Request) (string, bool) {
	h := req.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// verbOf maps an HTTP method to the verb a non-resource request is
// authorized for, as the apiserver does: GET and HEAD are "get".
func verbOf(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead:
		return "get"
	case http.MethodPost:
		return "post"
	case http.MethodPut:
		return "put"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		return "delete"
	}
	return strings.ToLower(method)
}

// authenticate returns the token's user, nil when the apiserver refused
// the token, or an error when it could not be asked (never cached).
func (a *Authorizer) authenticate(ctx context.Context, token string) (*authnv1.UserInfo, error) {
	key := sha256.Sum256([]byte(token))
	now := a.o.Now()
	a.mu.Lock()
	e, ok := a.users[key]
	a.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.user, nil
	}
	tr, err := a.o.Client.AuthenticationV1().TokenReviews().Create(ctx,
		&authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("TokenReview: %w", err)
	}
	var user *authnv1.UserInfo
	if tr.Status.Authenticated {
		u := tr.Status.User
		user = &u
	}
	a.mu.Lock()
	prune(a.users, now, func(e userEntry) time.Time { return e.expires })
	a.users[key] = userEntry{user: user, expires: now.Add(a.o.TTL)}
	a.mu.Unlock()
	return user, nil
}

// authorize asks whether user may verb path.
func (a *Authorizer) authorize(ctx context.Context, user *authnv1.UserInfo, path, verb string) (bool, string, error) {
	extra := make([]string, 0, len(user.Extra))
	for k, v := range user.Extra {
		extra = append(extra, k+"="+strings.Join(v, ","))
	}
	slices.Sort(extra)
	key := grantKey{user: user.Username, uid: user.UID, path: path, verb: verb,
		groups: strings.Join(user.Groups, "\x00"), extra: strings.Join(extra, "\x00")}
	now := a.o.Now()
	a.mu.Lock()
	e, ok := a.grants[key]
	a.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.allowed, e.reason, nil
	}
	sar := &authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{
		User: user.Username, UID: user.UID, Groups: user.Groups,
		NonResourceAttributes: &authzv1.NonResourceAttributes{Path: path, Verb: verb},
	}}
	if len(user.Extra) > 0 {
		sar.Spec.Extra = map[string]authzv1.ExtraValue{}
		for k, v := range user.Extra {
			sar.Spec.Extra[k] = authzv1.ExtraValue(v)
		}
	}
	got, err := a.o.Client.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
	if err != nil {
		return false, "", fmt.Errorf("SubjectAccessReview: %w", err)
	}
	allowed := got.Status.Allowed && !got.Status.Denied
	a.mu.Lock()
	prune(a.grants, now, func(e grantEntry) time.Time { return e.expires })
	a.grants[key] = grantEntry{allowed: allowed, reason: got.Status.Reason, expires: now.Add(a.o.TTL)}
	a.mu.Unlock()
	return allowed, got.Status.Reason, nil
}

// prune makes room in a full cache: expired entries go; if none had
// expired, all go.
func prune[K comparable, V any](m map[K]V, now time.Time, expires func(V) time.Time) {
	if len(m) < maxEntries {
		return
	}
	for k, v := range m {
		if !now.Before(expires(v)) {
			delete(m, k)
		}
	}
	if len(m) >= maxEntries {
		clear(m)
	}
}
