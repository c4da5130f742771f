# Shared set-up for scripts/test and scripts/run (sourced): a virtual environment with the
# package and its extras, and Debian's gnubg (and for the tests chromium and chromium-driver)
# when apt is available.
VENV="${GBOT_VENV:-$PWD/.venv}"

# gbot_setup [EXTRAS]: the package with the extras named (comma-separated), or alone when none
gbot_setup() {
  local extras="${1:-}"
  if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
  fi
  local spec="."
  if [ -n "$extras" ]; then spec=".[$extras]"; fi
  local stamp="$VENV/.gbot-${extras:-package}-$(sha1sum pyproject.toml | cut -c1-12)"
  if [ ! -f "$stamp" ]; then
    "$VENV/bin/python" -m pip install -q --upgrade pip
    "$VENV/bin/python" -m pip install -q -e "$spec"
    touch "$stamp"
  fi
  if ! command -v gnubg >/dev/null 2>&1 && [ ! -x /usr/games/gnubg ]; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
      echo "installing Debian's gnubg ..."
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnubg) \
        >/dev/null 2>&1 || echo "warning: could not install gnubg; tests that need it will skip"
    else
      echo "warning: gnubg is not installed and apt is unavailable; tests that need it will skip"
    fi
  fi
  # the browser test's chromium: for scripts/test, not scripts/run
  if [ "$(basename -- "$0")" != "run" ] && { ! command -v chromium >/dev/null 2>&1 \
      || ! command -v chromedriver >/dev/null 2>&1; }; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
      echo "installing Debian's chromium and chromium-driver (the web page test) ..."
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq chromium chromium-driver) >/dev/null 2>&1 \
        || echo "warning: could not install chromium; the browser test will skip"
    else
      echo "warning: chromium is not installed and apt is unavailable; the browser test will skip"
    fi
  fi
  export PATH="$PATH:/usr/games"
}
