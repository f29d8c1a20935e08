"""Run in the GuideLLM virtualenv (.venv-tools/guidellm): save a character-level tokenizer (one token per printable
ASCII character, built with `tokenizers`, loadable by `AutoTokenizer.from_pretrained`) into the folder given. No
model tokenizer can be downloaded offline; GuideLLM's trace data needs one to make its prompts, and with this one a
prompt's length in tokens is its length in characters, so the prompts GuideLLM makes can be counted exactly."""

import string
import sys
from pathlib import Path

from tokenizers import Tokenizer, decoders, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast


def save_character_tokenizer(folder: Path) -> Path:
    """Save the character-level tokenizer into `folder` (GuideLLM's `hf_auto` tokenizer loads it from there)."""
    vocab = {"<unk>": 0} | {ch: n for n, ch in enumerate(string.printable, start=1)}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Split("", "isolated")  # every character its own token
    tokenizer.decoder = decoders.Fuse()  # and decoded back without separators
    PreTrainedTokenizerFast(tokenizer_object=tokenizer, unk_token="<unk>").save_pretrained(str(folder))
    return folder


if __name__ == "__main__":
    save_character_tokenizer(Path(sys.argv[1]))
