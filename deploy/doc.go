// Package deploy holds the Kubernetes manifests that run spindle as a
// secondary scheduler (namespace, RBAC, config, Deployment) and Spark
// examples that use it. It has no code: its test parses every manifest into
// the typed API objects and holds the RBAC rules to exactly what the
// scheduler uses.
package deploy
