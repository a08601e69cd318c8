# Herald's container image: a static binary on an empty base (scratch), run
# as an unprivileged numeric user, with its SQLite database in the /data
# volume. Build it with the version it should report:
#
#   docker build -t herald:$(git describe --tags --always) \
#     --build-arg VERSION=$(git describe --tags --always) \
#     --build-arg COMMIT=$(git rev-parse HEAD) \
#     --build-arg BUILD_TIME=$(date -u +%Y-%m-%dT%H:%M:%SZ) .
#
# CI builds the final stage, from the line "FROM scratch" on, with podman
# around a binary it built itself (deploy/check-image.sh): keep that stage
# free of RUN, and its only COPY --from=build lines those the script swaps.
# Decision 0022 says why.

ARG GO_IMAGE=docker.io/library/golang:1.26-bookworm

FROM ${GO_IMAGE} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=unknown
ARG BUILD_TIME=unknown
# rootfs is the image's file system: the binary, the CA certificates (Meta's
# API and media hosts are reached over TLS) and /tmp; volume/ holds /data,
# for the database, copied apart so that it is the user's.
RUN CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT} -X main.buildTime=${BUILD_TIME}" \
      -o /rootfs/usr/local/bin/herald ./cmd/herald \
 && mkdir -p /rootfs/etc/ssl/certs /rootfs/tmp /volume/data \
 && cp /etc/ssl/certs/ca-certificates.crt /rootfs/etc/ssl/certs/ \
 && chmod 1777 /rootfs/tmp && chmod 0700 /volume/data

FROM scratch
ARG VERSION=dev
ARG COMMIT=unknown
ARG BUILD_TIME=unknown
ARG SOURCE=https://github.com/heraldhq/herald
LABEL org.opencontainers.image.title="Herald" \
      org.opencontainers.image.description="WhatsApp template messages through a small HTTP API" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${COMMIT}" \
      org.opencontainers.image.created="${BUILD_TIME}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.documentation="${SOURCE}#deploy"
COPY --from=build /rootfs/ /
COPY --from=build --chown=65532:65532 /volume/ /
USER 65532:65532
# PATH for `docker exec NAME herald keys create …`. Listen on every
# interface of the container (publish the port on the host's loopback or
# behind a proxy); SQLite in the volume unless HERALD_DATABASE_URL names
# PostgreSQL.
ENV PATH=/usr/local/bin \
    HERALD_ADDR=0.0.0.0:8080 \
    HERALD_DATABASE_URL=sqlite:/data/herald.db \
    HERALD_LOG_FORMAT=json
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=5s --start-period=15s --retries=3 \
  CMD ["/usr/local/bin/herald", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/herald"]
CMD ["serve"]
