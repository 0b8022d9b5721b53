package kubepki

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"os"
	"strings"
	"testing"
)

func readCert(t *testing.T, path string) *x509.Certificate {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := pem.Decode(data)
	if b == nil || b.Type != "CERTIFICATE" {
		t.Fatalf("%s: no PEM certificate", path)
	}
	c, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestWriteIssuesAVerifiableChain(t *testing.T) {
	f, err := Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ca := readCert(t, f.CACert)
	roots := x509.NewCertPool()
	roots.AddCert(ca)

	serving := readCert(t, f.ServingCert)
	for _, host := range []string{"127.0.0.1", "localhost", "kubernetes.default.svc"} {
		if _, err := serving.Verify(x509.VerifyOptions{DNSName: host, Roots: roots}); err != nil {
			t.Errorf("serving certificate for %s: %v", host, err)
		}
	}
	if _, err := serving.Verify(x509.VerifyOptions{DNSName: "example.com", Roots: roots}); err == nil {
		t.Error("serving certificate verified for a non-loopback name")
	}

	admin := readCert(t, f.AdminCert)
	if _, err := admin.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("admin certificate: %v", err)
	}
	if got := admin.Subject.Organization; len(got) != 1 || got[0] != "system:masters" {
		t.Errorf("admin organization = %v, want [system:masters]", got)
	}

	for _, pair := range [][2]string{{f.ServingCert, f.ServingKey}, {f.AdminCert, f.AdminKey}} {
		if _, err := tls.LoadX509KeyPair(pair[0], pair[1]); err != nil {
			t.Errorf("key pair %s: %v", pair[0], err)
		}
	}
	pub, err := os.ReadFile(f.ServicePubKey)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := pem.Decode(pub); b == nil || b.Type != "PUBLIC KEY" {
		t.Errorf("%s: not a PEM public key", f.ServicePubKey)
	}
	if info, err := os.Stat(f.AdminKey); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("admin key mode = %v, %v; want 0600", info.Mode().Perm(), err)
	}
}

func TestKubeconfigNamesServerAndFiles(t *testing.T) {
	f, err := Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	kc := f.Kubeconfig("https://127.0.0.1:6443")
	for _, want := range []string{"server: https://127.0.0.1:6443", "certificate-authority: " + f.CACert,
		"client-certificate: " + f.AdminCert, "client-key: " + f.AdminKey, "current-context: spindle-local"} {
		if !strings.Contains(kc, want) {
			t.Errorf("kubeconfig lacks %q:\n%s", want, kc)
		}
	}
}

func TestWriteFailsOnUnwritableDir(t *testing.T) {
	file := t.TempDir() + "/file"
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(file + "/pki"); err == nil {
		t.Error("Write under a regular file succeeded")
	}
}
