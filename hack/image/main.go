// Command image builds spindle's container image in the repository, with
// nothing but Go and the module cache: a static binary of cmd/spindle in
// one layer, written as an image tarball that `docker load`,
// `podman load`, `kind load image-archive` and `crane push` accept, and
// optionally as an OCI image layout directory.
//
//	go run ./hack/image [-o spindle-image.tar] [-layout DIR] [-tag spindle:dev] [-arch amd64]
//
// The build is reproducible: the same source gives the same bytes (and so
// the same image digest) on any machine with the same Go release. The
// binary is built with -trimpath, no build ID and no VCS stamp; every time
// in the image is the Unix epoch; files are root-owned with fixed modes.
// The image runs as 65532:65532 (the Deployment's runAsUser) with the
// binary as its entrypoint and nothing else in it: the in-cluster client
// reads its CA and token from the ServiceAccount mount, so no CA bundle,
// shell or passwd file is needed.
package main

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// DefaultTag is the image's name in the tarball; deploy/deployment.yaml
// uses it.
const DefaultTag = "spindle:dev"

// Entrypoint is where the binary lives in the image.
const Entrypoint = "/spindle"

// User is the uid:gid the image runs as.
const User = "65532:65532"

type options struct {
	src    string // the module's root
	out    string // tarball path ("" for none)
	layout string // OCI layout directory ("" for none)
	tag    string
	arch   string
	log    io.Writer
}

func main() {
	o := options{log: os.Stderr}
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	fs.StringVar(&o.out, "o", "spindle-image.tar", "write the image as a tarball (docker load / podman load / crane push) here; \"\" for none")
	fs.StringVar(&o.layout, "layout", "", "also write an OCI image layout directory here")
	fs.StringVar(&o.tag, "tag", DefaultTag, "the image's name in the tarball")
	fs.StringVar(&o.arch, "arch", "amd64", "GOARCH of the binary and the image")
	fs.StringVar(&o.src, "src", ".", "the spindle module's root")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: go run ./hack/image [-o spindle-image.tar] [-layout DIR] [-tag spindle:dev] [-arch amd64]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "image: unexpected argument %q\n", fs.Arg(0))
		os.Exit(2)
	}
	digest, err := build(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
	fmt.Printf("%s %s\n", o.tag, digest)
}

// build compiles the binary, assembles the image and writes it; it
// returns the image's digest.
func build(o options) (v1.Hash, error) {
	if o.out == "" && o.layout == "" {
		return v1.Hash{}, errors.New("nothing to write: give -o or -layout")
	}
	tag, err := name.NewTag(o.tag)
	if err != nil {
		return v1.Hash{}, fmt.Errorf("-tag %q: %w", o.tag, err)
	}
	tmp, err := os.MkdirTemp("", "spindle-image-")
	if err != nil {
		return v1.Hash{}, err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "spindle")
	fmt.Fprintf(o.log, "building cmd/spindle for linux/%s (static)\n", o.arch)
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w -buildid=", "-o", bin, "./cmd/spindle")
	cmd.Dir = o.src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+o.arch, "GOFLAGS=")
	cmd.Stdout, cmd.Stderr = o.log, o.log
	if err := cmd.Run(); err != nil {
		return v1.Hash{}, fmt.Errorf("go build ./cmd/spindle: %w", err)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		return v1.Hash{}, err
	}
	if err := static(data); err != nil {
		return v1.Hash{}, err
	}
	img, err := image(data, o.arch)
	if err != nil {
		return v1.Hash{}, err
	}
	digest, err := img.Digest()
	if err != nil {
		return v1.Hash{}, err
	}
	if o.out != "" {
		if err := tarball.WriteToFile(o.out, tag, img); err != nil {
			return v1.Hash{}, fmt.Errorf("write %s: %w", o.out, err)
		}
		fmt.Fprintf(o.log, "wrote %s\n", o.out)
	}
	if o.layout != "" {
		if err := os.RemoveAll(o.layout); err != nil {
			return v1.Hash{}, err
		}
		p, err := layout.Write(o.layout, empty.Index)
		if err != nil {
			return v1.Hash{}, fmt.Errorf("layout %s: %w", o.layout, err)
		}
		if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": tag.TagStr()})); err != nil {
			return v1.Hash{}, fmt.Errorf("layout %s: %w", o.layout, err)
		}
		fmt.Fprintf(o.log, "wrote the OCI layout %s\n", o.layout)
	}
	return digest, nil
}

// static checks the binary is a Linux ELF with no interpreter and no shared
// libraries: it must run in an image with nothing else in it.
func static(data []byte) error {
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("the built binary is not ELF: %w", err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return errors.New("the built binary is dynamically linked (it has an interpreter); build with CGO_ENABLED=0")
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		return fmt.Errorf("the built binary needs shared libraries %s", strings.Join(libs, ", "))
	}
	return nil
}

// epoch is every time in the image.
var epoch = time.Unix(0, 0).UTC()

// image is the binary in one layer, run as User.
func image(bin []byte, arch string) (v1.Image, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: strings.TrimPrefix(Entrypoint, "/"), Mode: 0o755, Size: int64(len(bin)),
		ModTime: epoch, Format: tar.FormatUSTAR}
	if err := tw.WriteHeader(hdr); err != nil {
		return nil, err
	}
	if _, err := tw.Write(bin); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	layerBytes := buf.Bytes()
	// Docker's media types (schema 2), which every runtime and registry
	// takes: the tarball format keeps only the config and the layers, and
	// a reader (docker load, crane push) rebuilds a schema 2 manifest from
	// them, so with these types the manifest it rebuilds is this one and
	// the digest build prints is the digest that gets pushed.
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerBytes)), nil
	}, tarball.WithMediaType(types.DockerLayer))
	if err != nil {
		return nil, fmt.Errorf("layer: %w", err)
	}
	base := mutate.MediaType(empty.Image, types.DockerManifestSchema2)
	base = mutate.ConfigMediaType(base, types.DockerConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{Layer: layer, History: v1.History{
		Created: v1.Time{Time: epoch}, CreatedBy: "go run ./hack/image", Comment: "cmd/spindle, static",
	}})
	if err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Architecture, cf.OS = arch, "linux"
	cf.Created = v1.Time{Time: epoch}
	cf.Config.Entrypoint = []string{Entrypoint}
	cf.Config.Cmd = nil
	cf.Config.User = User
	cf.Config.WorkingDir = "/"
	return mutate.ConfigFile(img, cf)
}
