"""The built-in offline model: a rules-based extractor behind a litellm custom provider."""
