#!/usr/bin/env bash
# Installs the Python package built in build/ (scripts/demo.sh runs this): as root into
# /usr/local/lib/python3.X/dist-packages, otherwise into the user's site-packages; both are on
# /usr/bin/python3's path, so `import siskin` works from any folder. Usage: scripts/install-python.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if ! compgen -G "build/python/siskin/_siskin*.so" >/dev/null; then
  echo "the Python package was not built (see 'siskin Python package' in cmake's output)" >&2
  exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
  cmake --install build --component python >/dev/null
else
  site=$(/usr/bin/python3 -c 'import site; print(site.getusersitepackages())')
  rm -rf "$site/siskin" && mkdir -p "$site/siskin"
  cp build/python/siskin/*.py build/python/siskin/_siskin*.so "$site/siskin/"
fi
installed=$(cd / && /usr/bin/python3 -c 'import siskin, os; print(os.path.dirname(siskin.__file__))')
echo "siskin Python package installed in $installed"
