package localcluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/spindle-sched/spindle/internal/controlplane/kubepki"
)

// The command lines below mirror hack/local-cluster.sh; a change to one
// belongs in the other.

// controllers are the kube-controller-manager controllers a kwok cluster
// needs: node lifecycle removes the not-ready taint and marks lost nodes,
// taint eviction and pod GC clear pods of deleted or dead nodes (what a node
// lost mid-run looks like), namespace and garbage collector make deletes
// finish, the rest serve workloads that use them.
const controllers = "node-lifecycle-controller,taint-eviction-controller,pod-garbage-collector-controller," +
	"namespace-controller,garbage-collector-controller,serviceaccount-controller,serviceaccount-token-controller," +
	"job-controller,replicaset-controller,deployment-controller"

func etcdArgs(dataDir string, clientPort, peerPort int) []string {
	client := "http://127.0.0.1:" + strconv.Itoa(clientPort)
	peer := "http://127.0.0.1:" + strconv.Itoa(peerPort)
	return []string{
		"--name=spindle",
		"--data-dir=" + dataDir,
		"--listen-client-urls=" + client,
		"--advertise-client-urls=" + client,
		"--listen-peer-urls=" + peer,
		"--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=spindle=" + peer,
		// A test cluster's data is thrown away: skipping fsync makes etcd
		// fast on a busy disk and loses nothing that matters.
		"--unsafe-no-fsync=true",
		"--log-level=warn",
	}
}

// apiServerArgs: noNodeLifecycle disables the admission plugin that taints new
// nodes not-ready, for clusters without the controller that would remove it.
func apiServerArgs(pki kubepki.Files, etcdURL string, port int, noNodeLifecycle bool) []string {
	disabled := "ServiceAccount" // fake pods need no token; a fresh namespace is usable at once
	if noNodeLifecycle {
		disabled += ",TaintNodesByCondition"
	}
	return []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--tls-cert-file=" + pki.ServingCert,
		"--tls-private-key-file=" + pki.ServingKey,
		"--client-ca-file=" + pki.CACert,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + pki.ServicePubKey,
		"--service-account-signing-key-file=" + pki.ServiceKey,
		"--service-cluster-ip-range=10.0.0.0/24",
		"--authorization-mode=RBAC",
		// The controller-manager and scheduler read the front-proxy CA for
		// delegated authentication and log an error every few seconds when
		// there is none. The CA is ours; the allowed name is one no
		// certificate we issue carries, so no client can act as a proxy.
		"--requestheader-client-ca-file=" + pki.CACert,
		"--requestheader-allowed-names=spindle-front-proxy-unused",
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--disable-admission-plugins=" + disabled,
		// Endpoints may not hold a loopback address, so the apiserver must
		// not try to publish itself as the kubernetes service's endpoint.
		"--endpoint-reconciler-type=none",
		"--profiling=false",
		"--v=1",
	}
}

func controllerManagerArgs(pki kubepki.Files, kubeconfig string, port int, certDir string) []string {
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + certDir,
		"--leader-elect=false",
		"--controllers=" + controllers,
		"--service-account-private-key-file=" + pki.ServiceKey,
		"--root-ca-file=" + pki.CACert,
		"--use-service-account-credentials=false",
		// kwok renews node leases every few seconds; notice a lost node in
		// 40 s like kwok's own clusters, not after the 50 s default.
		"--node-monitor-grace-period=40s",
		"--v=1",
	}
}

func schedulerArgs(kubeconfig string, port int, certDir string) []string {
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + certDir,
		"--leader-elect=false",
		"--v=1",
	}
}

func kwokArgs(kubeconfig string, port int, stages []string) []string {
	args := []string{
		"--kubeconfig=" + kubeconfig,
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector=" + KwokNodeAnnotation + "=fake",
		"--server-address=127.0.0.1:" + strconv.Itoa(port),
		"--node-ip=127.0.0.1",
		// Pod IPs are data only (nothing connects to them); a /16 names
		// the benchmark's thousands of pods without reusing kwok's default
		// /24, which is the service range here.
		"--cidr=10.244.0.0/16",
		"--node-lease-duration-seconds=40",
	}
	for _, s := range stages {
		args = append(args, "--config="+s)
	}
	return args
}

// standardStages are the kwok stage files (from kwok's module, copied next to
// the binaries by hack/build-kube.sh) a local cluster loads: nodes become
// Ready at once and keep a lease, pods run at once when bound and go when
// deleted. The pod-complete stage is spindle's own (deploy/kwok).
var standardStages = []string{
	"node/fast/node-initialize.yaml",
	"node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
	"pod/fast/pod-ready.yaml",
	"pod/fast/pod-delete.yaml",
}

// SpindleStage is the repository path of spindle's pod-complete stage.
const SpindleStage = "deploy/kwok/pod-complete-after-duration.yaml"

// StageFiles returns the kwok --config files: the standard stages next to
// bin and spindle's stage from the repository at repo (found from the
// working directory when "").
func StageFiles(bin, repo string) ([]string, error) {
	root := filepath.Join(filepath.Dir(bin), "kwok-stages")
	var files []string
	for _, s := range standardStages {
		files = append(files, filepath.Join(root, s))
	}
	if repo == "" {
		var err error
		if repo, err = repoRoot(); err != nil {
			return nil, err
		}
	}
	files = append(files, filepath.Join(repo, SpindleStage))
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("kwok stage file: %w (hack/build-kube.sh copies kwok's standard stages)", err)
		}
	}
	return files, nil
}

// repoRoot finds the module root by walking up from the working directory,
// which go test sets to the package's directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}
