#!/bin/sh
# Stop the service before its files go; the data stay in /var/lib/tracker.
set -e
if [ -d /run/systemd/system ]; then
	systemctl stop tracker.service >/dev/null 2>&1 || true
	systemctl disable tracker.service >/dev/null 2>&1 || true
fi
