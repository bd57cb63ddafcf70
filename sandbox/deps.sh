#!/usr/bin/env bash
# Installs what zklock's tests, benchmarks and demo need: a Java runtime,
# ZooKeeper, tmux, Kazoo (for /usr/bin/python3) and Apache Curator.
# On Debian/Ubuntu it uses apt-get (through sudo when not root); elsewhere it
# prints what to install and fails.
set -euo pipefail

need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-query >/dev/null 2>&1; then
  missing=0
  command -v java >/dev/null 2>&1 || { echo "deps: install a Java runtime (17+)"; missing=1; }
  [ -n "${ZOOKEEPER_HOME:-}" ] || command -v zkServer.sh >/dev/null 2>&1 || {
    echo "deps: install Apache ZooKeeper 3.6+ (Homebrew: brew install zookeeper) or set ZOOKEEPER_HOME"; missing=1; }
  command -v tmux >/dev/null 2>&1 || { echo "deps: install tmux"; missing=1; }
  command -v promtool >/dev/null 2>&1 || { echo "deps: install promtool (Homebrew: brew install prometheus)"; missing=1; }
  echo "deps: interop tests also need Apache Curator 5 jars and Python Kazoo; see README.md"
  exit "$missing"
fi

# python3-pure-sasl: Kazoo's SASL (DIGEST-MD5 interop tests).
# libservlet-api-java: the servlet API jar, without which Debian's
# zookeeper.jar silently starts no AdminServer (the AdminServer tests).
for p in default-jre-headless zookeeper tmux python3-kazoo python3-pure-sasl libcurator-recipes-java libslf4j-java libservlet-api-java; do
  have_pkg "$p" || need+=("$p")
done
# MIT Kerberos's KDC for the GSSAPI tests (sandbox/kdc.go makes a throwaway
# realm per test run; about 15 s to install). krb5-config's debconf writes
# /etc/krb5.conf with a sample realm: the tests never read it. On a host
# booted with systemd both services are enabled with the stock realm
# (systemctl disable --now krb5-kdc krb5-admin-server if unwanted).
# krb5-user: kinit and klist, for the credential-cache tests; faketime
# (libfaketime): a KDC whose clock is shifted, for the clock-skew test;
# python3-kerberos: pure-sasl's GSSAPI, for Kazoo over Kerberos.
for p in krb5-kdc krb5-admin-server krb5-user faketime python3-kerberos; do
  have_pkg "$p" || need+=("$p")
done
# javac compiles the small Curator driver used by interop tests and benchmarks.
command -v javac >/dev/null 2>&1 || need+=(default-jdk-headless)
# promtool checks and unit-tests deploy/prometheus/ (cmd's TestAlertRulesPromtool).
# Debian ships it only in the prometheus package (about 30 s to install), whose
# prometheus.service is enabled: on a host booted with systemd it starts a
# Prometheus server on :9090 (systemctl disable --now prometheus if unwanted);
# in a container policy-rc.d usually stops it starting.
command -v promtool >/dev/null 2>&1 || need+=(prometheus)

if [ ${#need[@]} -eq 0 ]; then
  echo "deps: all present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "deps: installing ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
echo "deps: installed ${need[*]}"
