"""FIBS: the CLIP protocol, the bot's state machine, lobby and records, and its socket client."""
