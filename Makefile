# Build and test entry points. `make test` brings up the local AWS test bed
# (scripts/local-aws: PostgreSQL, MariaDB, LocalStack, Data API emulator on
# 127.0.0.1), checks template.yaml with the SAM CLI, runs the Maven build
# against the test bed with the release profile (the Maven Central bundle built
# and validated, docs/releasing.md), checks that a second build of the commit
# gives the same bytes, runs the demo (`make demo`) on what it built, and builds
# the deployment packages with `sam build`.
SHELL := /bin/bash

.PHONY: test demo run-poller run-reservations testbed-up testbed-down testbed-status format docs

test:
	set -euo pipefail; \
	scripts/local-aws up; \
	eval "$$(scripts/local-aws env)"; \
	scripts/sam validate --lint; \
	./mvnw -B -Prelease verify; \
	scripts/check-reproducible; \
	RUN_MAIN_BUILD=off scripts/run-main dev.lambdaoutbox.demo.OutboxDemo; \
	scripts/sam build; \
	du -sh .aws-sam/build/PollerFunction .aws-sam/build/DlqReprocessorFunction

# The main job, locally: the whole story on the test bed (write, publish, crash, dead letters,
# replay, duplicates absorbed), ending with a verdict; exits non-zero when the verdict is not clean.
demo:
	scripts/run-main dev.lambdaoutbox.demo.OutboxDemo

# The packaged poller publishes three sample events through the test bed.
run-poller:
	scripts/run-main dev.lambdaoutbox.local.RunPollerLocally

# The sample Spring Boot service (examples/reservations-service) on the test bed, on port 8080, its
# commits waking the packaged poller; prints each event its queue receives.
run-reservations:
	examples/reservations-service/run-local

testbed-up:
	scripts/local-aws up

testbed-down:
	scripts/local-aws down

testbed-status:
	scripts/local-aws status

format:
	./mvnw -B spotless:apply

# Rewrites the generated sections of the docs (the alarm table, the cost tables) from template.yaml
# and the code; GeneratedDocsTest fails while a page differs from what this writes.
docs:
	./mvnw -B -q -pl tests -am verify -Dtest=GeneratedDocsTest -Dsurefire.failIfNoSpecifiedTests=false -Ddocs.write=true -Dspotless.check.skip=true

# `sam build` (BuildMethod makefile in template.yaml) runs these, with ARTIFACTS_DIR set by SAM:
# each function's package is its shaded jar in lib/.
build-PollerFunction:
	scripts/build-function poller-function "$(ARTIFACTS_DIR)"

build-DlqReprocessorFunction:
	scripts/build-function dlq-reprocessor-function "$(ARTIFACTS_DIR)"
