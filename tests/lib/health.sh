# shellcheck shell=bash
# health.sh - is an imatrust-verifier on loopback up? (sourced by
# tests/lib/verifiers.sh and tests/integration/swtpm-lib.sh)
#
#   verifier_up PORT CA   does https://127.0.0.1:PORT/v1/health answer 200
#                         over TLS, the certificate checked against CA?

verifier_up() {
	curl -sf --cacert "$2" "https://127.0.0.1:$1/v1/health" -o /dev/null
}
