"""The generation seam (`Generator`: contexts in, sampled `Continuation`s out) and every backend
behind it: transformers, vLLM in the trainer and offline, an OpenAI-compatible server (completions
and chat), with the tokenizer and decoding they share."""
