// Package kubepki writes the throwaway certificates and keys a loopback
// Kubernetes control plane needs: a CA, the kube-apiserver's serving
// certificate, an administrator's client certificate (group system:masters)
// and the service-account signing key pair.
//
// It exists so that the live test harness and hack/local-cluster.sh need
// nothing but Go: openssl is not guaranteed on a fresh machine. Everything is
// valid for loopback names only and for a short time; none of it is meant to
// protect anything beyond a test cluster on 127.0.0.1.
package kubepki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Files names the PEM files Write creates, all inside one directory.
type Files struct {
	CACert        string // the CA that signed both certificates below; clients trust it
	ServingCert   string // kube-apiserver --tls-cert-file
	ServingKey    string // kube-apiserver --tls-private-key-file
	AdminCert     string // client certificate, CN=spindle-admin, O=system:masters
	AdminKey      string
	ServiceKey    string // service-account signing key (private)
	ServicePubKey string // service-account verification key (public)
}

// Validity is how long the generated certificates last. A local cluster is
// started and stopped within a day; a week leaves room for a long-lived one.
const Validity = 7 * 24 * time.Hour

// Write generates a fresh PKI into dir (created if missing) and returns the
// file names. Existing files are overwritten: a PKI is never shared between
// two clusters.
func Write(dir string) (Files, error) {
	f := Files{
		CACert:        filepath.Join(dir, "ca.crt"),
		ServingCert:   filepath.Join(dir, "apiserver.crt"),
		ServingKey:    filepath.Join(dir, "apiserver.key"),
		AdminCert:     filepath.Join(dir, "admin.crt"),
		AdminKey:      filepath.Join(dir, "admin.key"),
		ServiceKey:    filepath.Join(dir, "sa.key"),
		ServicePubKey: filepath.Join(dir, "sa.pub"),
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Files{}, fmt.Errorf("kubepki: %w", err)
	}
	now := time.Now()

	caKey, err := newKey()
	if err != nil {
		return Files{}, err
	}
	caTmpl := &x509.Certificate{
		Subject:               pkix.Name{CommonName: "spindle-local-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(Validity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, caCert, err := sign(caTmpl, caKey, nil, nil)
	if err != nil {
		return Files{}, fmt.Errorf("kubepki: CA: %w", err)
	}

	servingKey, err := newKey()
	if err != nil {
		return Files{}, err
	}
	servingDER, _, err := sign(&x509.Certificate{
		Subject:     pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:   now.Add(-time.Hour),
		NotAfter:    now.Add(Validity),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		// The in-cluster names and the default service IP of the kubernetes
		// service, so a pod-side client would also verify; loopback for all else.
		DNSNames: []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
			"kubernetes.default.svc.cluster.local"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback, net.IPv4(10, 0, 0, 1)},
	}, servingKey, caCert, caKey)
	if err != nil {
		return Files{}, fmt.Errorf("kubepki: serving certificate: %w", err)
	}

	adminKey, err := newKey()
	if err != nil {
		return Files{}, err
	}
	adminDER, _, err := sign(&x509.Certificate{
		// system:masters bypasses RBAC: every component of a local cluster
		// (controller-manager, scheduler, kwok, tests) acts as this user.
		Subject:     pkix.Name{CommonName: "spindle-admin", Organization: []string{"system:masters"}},
		NotBefore:   now.Add(-time.Hour),
		NotAfter:    now.Add(Validity),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, adminKey, caCert, caKey)
	if err != nil {
		return Files{}, fmt.Errorf("kubepki: admin certificate: %w", err)
	}

	saKey, err := newKey()
	if err != nil {
		return Files{}, err
	}
	saPub, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return Files{}, fmt.Errorf("kubepki: service-account key: %w", err)
	}

	writes := []struct {
		path, kind string
		der        []byte
		key        *ecdsa.PrivateKey
	}{
		{f.CACert, "CERTIFICATE", caDER, nil},
		{f.ServingCert, "CERTIFICATE", servingDER, nil},
		{f.ServingKey, "", nil, servingKey},
		{f.AdminCert, "CERTIFICATE", adminDER, nil},
		{f.AdminKey, "", nil, adminKey},
		{f.ServiceKey, "", nil, saKey},
		{f.ServicePubKey, "PUBLIC KEY", saPub, nil},
	}
	for _, w := range writes {
		kind, der := w.kind, w.der
		if w.key != nil {
			kind = "EC PRIVATE KEY"
			if der, err = x509.MarshalECPrivateKey(w.key); err != nil {
				return Files{}, fmt.Errorf("kubepki: %s: %w", w.path, err)
			}
		}
		data := pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der})
		if err := os.WriteFile(w.path, data, 0o600); err != nil {
			return Files{}, fmt.Errorf("kubepki: %w", err)
		}
	}
	return f, nil
}

// Kubeconfig returns a kubeconfig that reaches server (https://127.0.0.1:port)
// as the administrator, referring to the files by absolute path.
func (f Files) Kubeconfig(server string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: spindle-local
  cluster:
    server: %s
    certificate-authority: %s
users:
- name: spindle-admin
  user:
    client-certificate: %s
    client-key: %s
contexts:
- name: spindle-local
  context:
    cluster: spindle-local
    user: spindle-admin
current-context: spindle-local
`, server, f.CACert, f.AdminCert, f.AdminKey)
}

func newKey() (*ecdsa.PrivateKey, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("kubepki: generate key: %w", err)
	}
	return k, nil
}

// sign issues tmpl for key, signed by parent/parentKey, or self-signed when
// parent is nil.
func sign(tmpl *x509.Certificate, key *ecdsa.PrivateKey, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) ([]byte, *x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, nil, err
	}
	tmpl.SerialNumber = serial
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, err
	}
	return der, cert, nil
}
