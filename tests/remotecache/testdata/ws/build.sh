#!/bin/sh
# Writes dist/ from src/ and logs what it did; VX_TEST_HOOK, when set, runs
# first (the suite uses it to stop the server mid-run).
set -e
if [ -n "$VX_TEST_HOOK" ] && [ "$(basename "$PWD")" = lib ]; then sh -c "$VX_TEST_HOOK"; fi
mkdir -p dist/nested
name=$(basename "$PWD")
cat src/*.txt > dist/out.txt
printf 'built %s at %s\n' "$name" "$$" > dist/nested/stamp.txt
head -c 3000 /dev/urandom > dist/blob.bin
chmod 0750 dist/out.txt
echo "building $name"
echo "wrote dist for $name"
