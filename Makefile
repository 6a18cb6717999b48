# Build and test entry points. `make test` brings up the local AWS test bed
# (scripts/local-aws: PostgreSQL, MariaDB, LocalStack, Data API emulator on
# 127.0.0.1), checks template.yaml with the SAM CLI and runs the Maven build
# against the test bed.
SHELL := /bin/bash

.PHONY: test run-poller testbed-up testbed-down testbed-status format

test:
	set -euo pipefail; \
	scripts/local-aws up; \
	eval "$$(scripts/local-aws env)"; \
	scripts/sam validate --lint; \
	./mvnw -B verify

# The main job, locally: the packaged poller publishes sample events through the test bed.
run-poller:
	scripts/run-main dev.lambdaoutbox.local.RunPollerLocally

testbed-up:
	scripts/local-aws up

testbed-down:
	scripts/local-aws down

testbed-status:
	scripts/local-aws status

format:
	./mvnw -B spotless:apply
