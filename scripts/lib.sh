# Shared helpers for the scripts in this folder. Sourced, not run.

# Fails with a clear message when the Rust toolchain is missing: it cannot be
# installed from Debian's packages at a usable version.
need_cargo() {
    if ! command -v cargo >/dev/null 2>&1; then
        if [ -x "$HOME/.cargo/bin/cargo" ]; then
            export PATH="$HOME/.cargo/bin:$PATH"
        else
            echo "error: cargo not found. Install Rust 1.88 or newer with rustup (https://rustup.rs), then run this again." >&2
            exit 2
        fi
    fi
}

# Installs Debian packages that are not installed yet (as root, with apt-get).
need_packages() {
    local missing=()
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "installing Debian packages: ${missing[*]}" >&2
    if [ "$(id -u)" -ne 0 ]; then
        echo "error: need root to install ${missing[*]} (or install them yourself)" >&2
        exit 2
    fi
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
    # The downloaded packages are installed: their copies would only take
    # the disk the builds need.
    apt-get clean
}

# Warns when the file system of DIR has less than GIB gibibytes free: a run
# that fills the disk fails late, at whatever step writes next.
warn_low_disk() {
    local dir="$1" gib="$2" free_kib
    while [ ! -d "$dir" ] && [ "$dir" != "$(dirname "$dir")" ]; do dir="$(dirname "$dir")"; done
    free_kib="$(df -Pk "$dir" 2>/dev/null | awk 'NR == 2 { print $4 }')"
    [ -n "$free_kib" ] || return 0
    if [ "$free_kib" -lt $((gib * 1024 * 1024)) ]; then
        echo "warning: $((free_kib / 1024)) MiB free on the disk of $dir; this needs about $gib GiB (free some, or set CARGO_TARGET_DIR to a larger disk)" >&2
    fi
}
