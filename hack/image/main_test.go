package main

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Two builds of the same source are byte-identical, tarball and layout
// alike, and the image is what the Deployment runs: one static binary as
// the entrypoint, uid 65532, epoch times, OCI media types.
func TestImageIsReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/spindle twice")
	}
	dir := t.TempDir()
	var tars [2][]byte
	var digests [2]string
	for i := range 2 {
		out := filepath.Join(dir, "spindle-"+string(rune('a'+i))+".tar")
		lay := filepath.Join(dir, "layout-"+string(rune('a'+i)))
		d, err := build(options{src: "../..", out: out, layout: lay, tag: DefaultTag, arch: "amd64", log: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		digests[i] = d.String()
		if tars[i], err = os.ReadFile(out); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(tars[0], tars[1]) {
		t.Fatalf("two builds differ: %d and %d bytes, digests %s and %s", len(tars[0]), len(tars[1]), digests[0], digests[1])
	}
	if digests[0] != digests[1] {
		t.Fatalf("digests differ: %s, %s", digests[0], digests[1])
	}
	for _, f := range []string{"index.json", "oci-layout"} {
		a, err := os.ReadFile(filepath.Join(dir, "layout-a", f))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "layout-b", f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("layout %s differs between builds", f)
		}
	}

	tag, err := name.NewTag(DefaultTag)
	if err != nil {
		t.Fatal(err)
	}
	img, err := tarball.ImageFromPath(filepath.Join(dir, "spindle-a.tar"), &tag)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := img.Digest(); err != nil || d.String() != digests[0] {
		t.Errorf("the tarball's image digest %v (%v), build reported %s", d, err, digests[0])
	}
	if mt, err := img.MediaType(); err != nil || mt != types.DockerManifestSchema2 {
		t.Errorf("manifest media type %s (%v)", mt, err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cf.OS != "linux" || cf.Architecture != "amd64" || !slices.Equal(cf.Config.Entrypoint, []string{Entrypoint}) ||
		cf.Config.User != User || !cf.Created.Time.Equal(epoch) {
		t.Errorf("config: os %s arch %s entrypoint %v user %s created %v", cf.OS, cf.Architecture, cf.Config.Entrypoint, cf.Config.User, cf.Created)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("%d layers (%v), want 1", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	var files []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, h.Name)
		if h.Mode != 0o755 || h.Uid != 0 || h.Gid != 0 || !h.ModTime.Equal(epoch) {
			t.Errorf("%s: mode %o uid %d gid %d mtime %v", h.Name, h.Mode, h.Uid, h.Gid, h.ModTime)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := static(data); err != nil {
			t.Errorf("%s: %v", h.Name, err)
		}
	}
	if !slices.Equal(files, []string{"spindle"}) {
		t.Errorf("layer holds %v, want only spindle", files)
	}

	p, err := layout.FromPath(filepath.Join(dir, "layout-a"))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil || len(m.Manifests) != 1 || m.Manifests[0].Digest.String() != digests[0] {
		t.Errorf("layout index %+v (%v), want the one image %s", m, err, digests[0])
	}
}

func TestStaticRefusesWhatIsNotAStaticELF(t *testing.T) {
	if err := static([]byte("#!/bin/sh\n")); err == nil {
		t.Error("a shell script passed as a static binary")
	}
	// This test binary is built the way go test builds it; whatever it is,
	// static must answer without panicking.
	self, err := os.ReadFile("/proc/self/exe")
	if err != nil {
		t.Skip("no /proc/self/exe")
	}
	_ = static(self)
}

func TestBuildNeedsAnOutput(t *testing.T) {
	if _, err := build(options{src: "../..", tag: DefaultTag, arch: "amd64", log: io.Discard}); err == nil {
		t.Error("build with neither -o nor -layout succeeded")
	}
	if _, err := build(options{src: "../..", out: "x.tar", tag: "Bad Tag!", arch: "amd64", log: io.Discard}); err == nil {
		t.Error("a malformed tag was accepted")
	}
}
