// Package deploy tests the deployment files against the binary they run:
// compose.yaml's order of migration and serving, the settings named in
// deploy/herald.env.example, the systemd unit and the Dockerfile, as far as
// they can be checked without a container engine or systemd running (those
// checks are deploy/check-image.sh and deploy/check-systemd.sh).
package deploy
