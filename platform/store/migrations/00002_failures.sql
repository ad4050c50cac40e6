-- +goose Up
-- Why a failed task failed, as vx pushed it (wire.PushFailure: a masked
-- excerpt of its output and the source locations it names); NULL for the
-- others and for runs pushed before.
ALTER TABLE executions ADD COLUMN failure JSONB;

-- +goose Down
ALTER TABLE executions DROP COLUMN failure;
