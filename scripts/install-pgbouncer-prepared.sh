#!/usr/bin/env bash
# PgBouncer with max_prepared_statements (1.21 or later) for the pooler e2e. Debian 12 ships 1.18,
# which has no such setting; Debian 13's source package (1.24) builds here against Debian 12's
# libraries in about ten seconds. Installed under /opt/pgbouncer-prepared, beside the packaged one.
set -euo pipefail

PREFIX=/opt/pgbouncer-prepared
if [ -x "$PREFIX/bin/pgbouncer" ]; then
  echo "ok: $("$PREFIX/bin/pgbouncer" --version | head -n1) at $PREFIX/bin/pgbouncer"
  exit 0
fi

apt-get install -y libevent-dev libssl-dev pkg-config make gcc >/dev/null

work="$(mktemp -d -t pgbouncer-build-XXXXXX)"
trap 'rm -rf "$work"' EXIT
cd "$work"
# The source package only: Debian 13's deb-src, read from a list of its own (nothing is added to
# the machine's apt sources).
echo "deb-src http://deb.debian.org/debian trixie main" >sources.list
apt_options=(-o "Dir::Etc::sourcelist=$work/sources.list" -o "Dir::Etc::sourceparts=-"
  -o "Dir::State::Lists=$work/lists" -o "APT::Get::List-Cleanup=0")
mkdir -p lists/partial
apt-get update "${apt_options[@]}" >/dev/null
apt-get source --download-only "${apt_options[@]}" pgbouncer >/dev/null
tar xzf pgbouncer_*.orig.tar.gz
cd pgbouncer-*/
./configure --prefix="$PREFIX" --without-cares --without-pam >/dev/null
make -j2 >/dev/null
make install >/dev/null
echo "ok: $("$PREFIX/bin/pgbouncer" --version | head -n1) at $PREFIX/bin/pgbouncer"
