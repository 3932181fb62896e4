# Sourced by the .ci scripts: the publishable crates of .ci/crates, in order, as `crates`.
mapfile -t crates < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$(dirname "${BASH_SOURCE[0]}")/crates")
# The same as cargo arguments: -p snowmint -p snowmint-cli ...
crate_args=()
for c in "${crates[@]}"; do crate_args+=(-p "$c"); done
