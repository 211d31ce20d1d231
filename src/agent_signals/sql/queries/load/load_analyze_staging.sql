-- Statistics of the filled staging tables: without them the planner guesses a temporary table small and
-- compares a million staged messages with the stored ones by nested loop (minutes instead of seconds).
analyze load_conversations, load_messages
