#!/bin/sh
# The tracker account and its data directory; the service is enabled but
# not started, so that /etc/default/tracker can be read first.
set -e
if ! getent group tracker >/dev/null; then
	groupadd --system tracker
fi
if ! getent passwd tracker >/dev/null; then
	useradd --system --gid tracker --home-dir /var/lib/tracker --no-create-home \
		--shell /usr/sbin/nologin --comment "tracker" tracker
fi
install -d -o tracker -g tracker -m 0750 /var/lib/tracker
if [ -d /run/systemd/system ]; then
	systemctl daemon-reload >/dev/null || true
	systemctl enable tracker.service >/dev/null || true
fi
