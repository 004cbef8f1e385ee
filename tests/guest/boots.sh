# shellcheck shell=bash
# boots.sh - the --only option of the guest runners (tests/guest/run.sh,
# tests/guest/streaming/run.sh), sourced. Their BOOTS array holds one
# "NAME|..." entry per boot.

# boots_only NAMES: keep the BOOTS entries whose NAME is in the comma
# list NAMES; returns 1 when none is left.
boots_only() {
	local i

	for i in "${!BOOTS[@]}"; do
		case ",$1," in
		*",${BOOTS[$i]%%|*},"*) ;;
		*) unset 'BOOTS[i]' ;;
		esac
	done
	BOOTS=("${BOOTS[@]}")
	[ ${#BOOTS[@]} -gt 0 ]
}
