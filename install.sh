#!/bin/sh
# install.sh: downloads the harness binary for this machine from a GitHub release, checks it
# against the release's SHA256SUMS and installs it (default ~/.local/bin/harness).
#
#   curl -fsSL https://github.com/OWNER/harness/releases/latest/download/install.sh | sh
#   sh install.sh --dry-run          print the detected target and URLs, download nothing
#
# Environment:
#   HARNESS_VERSION      release tag to install, e.g. v0.2.0 (default: latest)
#   HARNESS_INSTALL_DIR  where to put the binary (default: ~/.local/bin)
#   HARNESS_REPO         GitHub owner/name (default below; release copies have it filled in)
#   HARNESS_RELEASE_URL  releases base URL (default https://github.com/$HARNESS_REPO/releases);
#                        file:// and http://127.0.0.1 bases work, for mirrors and tests
#   HARNESS_DOWNLOADER   curl or wget (default: whichever exists, curl first)
#   HARNESS_UNAME_S / HARNESS_UNAME_M   override `uname -s` / `uname -m` (tests)
set -eu

# release.yml rewrites this line in the install.sh it attaches to each release.
HARNESS_DEFAULT_REPO="OWNER/harness"

say() { printf '%s\n' "$*"; }
fail() {
  printf 'error: %s\n' "$*" >&2
  exit 1
}

usage() {
  cat <<'EOF'
Install the harness binary for this machine from a GitHub release.

Usage: sh install.sh [--dry-run] [--help]

  --dry-run   print the detected target, the download URLs and the install path; change nothing
  --help      show this help

Environment: HARNESS_VERSION (default latest), HARNESS_INSTALL_DIR (default ~/.local/bin),
HARNESS_REPO, HARNESS_RELEASE_URL, HARNESS_DOWNLOADER (curl|wget).
EOF
}

dry_run=0
for arg in "$@"; do
  case "$arg" in
    --dry-run) dry_run=1 ;;
    -h | --help)
      usage
      exit 0
      ;;
    *) fail "Unknown argument \"$arg\": run \"sh install.sh --help\" for usage" ;;
  esac
done

# --- Which binary: uname -> Rust-style target triple (the names release.yml builds). ---
uname_s="${HARNESS_UNAME_S:-$(uname -s)}"
uname_m="${HARNESS_UNAME_M:-$(uname -m)}"

# An x86_64 shell on Apple silicon (Rosetta) reports x86_64; the native binary is better.
if [ -z "${HARNESS_UNAME_M:-}" ] && [ "$uname_s" = "Darwin" ] && [ "$uname_m" = "x86_64" ]; then
  if [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || echo 0)" = "1" ]; then
    uname_m="arm64"
  fi
fi

target=""
case "$uname_s" in
  Linux)
    case "$uname_m" in
      x86_64 | amd64) target="x86_64-unknown-linux-gnu" ;;
      aarch64 | arm64) target="aarch64-unknown-linux-gnu" ;;
    esac
    ;;
  Darwin)
    case "$uname_m" in
      x86_64) target="x86_64-apple-darwin" ;;
      arm64 | aarch64) target="aarch64-apple-darwin" ;;
    esac
    ;;
  MINGW* | MSYS* | CYGWIN* | Windows_NT)
    fail "This script does not install on Windows: download \"harness-x86_64-pc-windows-msvc.exe\" and \"SHA256SUMS\" from the release page instead"
    ;;
esac
if [ -z "$target" ]; then
  fail "Unsupported platform \"$uname_s $uname_m\": release binaries exist for Linux and macOS on x86_64 and arm64; on other machines build from source with \"deno task compile\""
fi

# --- Where from. ---
version="${HARNESS_VERSION:-latest}"
repo="${HARNESS_REPO:-$HARNESS_DEFAULT_REPO}"
release_url="${HARNESS_RELEASE_URL:-https://github.com/$repo/releases}"
release_url="${release_url%/}"
if [ "$version" = "latest" ]; then
  download_url="$release_url/latest/download"
else
  download_url="$release_url/download/$version"
fi
asset="harness-$target"
binary_url="$download_url/$asset"
sums_url="$download_url/SHA256SUMS"

install_dir="${HARNESS_INSTALL_DIR:-$HOME/.local/bin}"
install_path="$install_dir/harness"

if [ "$dry_run" = 1 ]; then
  say "platform: $uname_s $uname_m"
  say "target:   $target"
  say "version:  $version"
  say "binary:   $binary_url"
  say "sums:     $sums_url"
  say "install:  $install_path"
  exit 0
fi

# --- Download. file:// URLs are copied directly (wget cannot fetch them). ---
downloader="${HARNESS_DOWNLOADER:-}"
if [ -z "$downloader" ]; then
  if command -v curl >/dev/null 2>&1; then
    downloader=curl
  elif command -v wget >/dev/null 2>&1; then
    downloader=wget
  fi
fi

download() { # download URL FILE
  case "$1" in
    file://*)
      cp "${1#file://}" "$2" 2>/dev/null || return 1
      return 0
      ;;
  esac
  case "$downloader" in
    curl) curl -fsSL --retry 2 -o "$2" "$1" ;;
    wget) wget -q -O "$2" "$1" ;;
    *) fail "Cannot download \"$1\": neither curl nor wget is installed; install one of them and run this script again" ;;
  esac
}

tmp_dir="$(mktemp -d 2>/dev/null || mktemp -d -t harness-install)"
trap 'rm -rf "$tmp_dir"' EXIT
trap 'exit 130' INT TERM

say "Downloading $asset ($version)"
download "$binary_url" "$tmp_dir/$asset" ||
  fail "Cannot download \"$binary_url\": check HARNESS_VERSION (\"$version\") and your network, or download the binary manually from the release page"
download "$sums_url" "$tmp_dir/SHA256SUMS" ||
  fail "Cannot download \"$sums_url\": the release must include a SHA256SUMS file"

# --- Verify. ---
expected="$(awk -v f="$asset" '$2 == f || $2 == "*" f { print $1; exit }' "$tmp_dir/SHA256SUMS")"
[ -n "$expected" ] || fail "SHA256SUMS has no line for \"$asset\": the release looks incomplete; try another HARNESS_VERSION"
if command -v sha256sum >/dev/null 2>&1; then
  actual="$(sha256sum "$tmp_dir/$asset" | awk '{ print $1 }')"
elif command -v shasum >/dev/null 2>&1; then
  actual="$(shasum -a 256 "$tmp_dir/$asset" | awk '{ print $1 }')"
else
  fail "Cannot verify the download: neither sha256sum nor shasum is installed; install coreutils or perl and run this script again"
fi
if [ "$actual" != "$expected" ]; then
  fail "Checksum mismatch for \"$asset\": expected $expected, got $actual; nothing was installed. Retry the download; if it persists, report it"
fi

# --- Install (write next to the target, then rename, so a running harness is never half-written). ---
mkdir -p "$install_dir" || fail "Cannot create \"$install_dir\": set HARNESS_INSTALL_DIR to a folder you can write"
cp "$tmp_dir/$asset" "$install_path.tmp.$$" ||
  fail "Cannot write to \"$install_dir\": set HARNESS_INSTALL_DIR to a folder you can write"
chmod +x "$install_path.tmp.$$"
mv -f "$install_path.tmp.$$" "$install_path"
say "Installed harness $version ($target) to $install_path"

case ":${PATH:-}:" in
  *":$install_dir:"*) say "Run: harness --help" ;;
  *)
    say ""
    say "$install_dir is not on your PATH. Add it, e.g. in ~/.profile or ~/.bashrc / ~/.zshrc:"
    say "  export PATH=\"$install_dir:\$PATH\""
    say "then open a new terminal and run: harness --help"
    ;;
esac
