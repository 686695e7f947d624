"""The base weights a LoRA is trained on: the role's GGUF (dequantized by transformers) or an HF folder.

torch and transformers are imported inside the functions: the workstation installs without them (they
come with the ``[train]`` extra) and must never pay for importing them.

llama.cpp's converter needs the base model's ``config.json`` (and tokenizer) beside the adapter. A model
loaded from a GGUF cannot be saved whole ("quantized with gguf and is not serializable"), but its config
and tokenizer can, once ``architectures`` is filled in (transformers leaves it out for GGUF models and
the converter then fails with "Failed to detect model architecture").
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corrections.errors import CorrectionsError


class UnsupportedBase(CorrectionsError):
    title = "This base model cannot be trained here"


@dataclass
class LoadedBase:
    model: Any  # a transformers PreTrainedModel
    tokenizer: Any
    architecture: str  # the Hugging Face class name, e.g. LlamaForCausalLM
    config_dir: Path  # config.json + tokenizer files, for the converter


def _is_gguf(base: Path) -> bool:
    return base.is_file() and base.suffix.lower() == ".gguf"


def check_base(base: Path, converter_dir: Path) -> str:
    """The base's architecture, after checking both transformers and llama.cpp's converter handle it.

    Only the config is read (seconds), so a base the converter would refuse stops the run before
    training, not after it.
    """
    if not base.exists():
        raise UnsupportedBase(
            f"{base} does not exist. Name the GGUF file the role's server loads (or a Hugging Face model "
            "folder) with --base, or as `weights` on the backend in the config."
        )
    if not (_is_gguf(base) or (base.is_dir() and (base / "config.json").is_file())):
        raise UnsupportedBase(
            f"{base} is neither a .gguf file nor a Hugging Face model folder with a config.json. Point "
            "--base at the GGUF the server loads, or at the folder the model was downloaded to."
        )
    from transformers import AutoConfig

    try:
        if _is_gguf(base):
            config = AutoConfig.from_pretrained(base.parent, gguf_file=base.name)
        else:
            config = AutoConfig.from_pretrained(base)
    except (ValueError, OSError, KeyError) as exc:
        raise UnsupportedBase(
            f"transformers cannot read {base} as a model to train ({exc}). Use a Hugging Face folder of "
            "the same model as --base instead."
        ) from exc
    architecture = _architecture(config)
    supported = converter_architectures(converter_dir)
    if architecture not in supported:
        raise UnsupportedBase(
            f"{base} is a {architecture}, which llama.cpp's convert_lora_to_gguf.py (the version the "
            "server is built from) cannot convert, so an adapter trained on it could never be served. "
            "Train on a base model of a supported architecture (Llama, Qwen, Mistral, Gemma, ...)."
        )
    return architecture


def _architecture(config: Any) -> str:
    if getattr(config, "architectures", None):
        return str(config.architectures[0])
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    name = MODEL_FOR_CAUSAL_LM_MAPPING_NAMES.get(config.model_type)
    if not name:
        raise UnsupportedBase(
            f"transformers knows no causal language model for model type '{config.model_type}'."
        )
    return str(name)


def converter_architectures(converter_dir: Path) -> set[str]:
    """The architectures the pinned converter registers, asked of it in a child process (its
    ``conversion`` package would otherwise sit on this process's import path)."""
    code = (
        "import json, sys; sys.path[:0] = [sys.argv[1], sys.argv[1] + '/gguf-py']; "
        "from conversion import TEXT_MODEL_MAP; print(json.dumps(sorted(TEXT_MODEL_MAP)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(converter_dir)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise UnsupportedBase(
            f"llama.cpp's converter in {converter_dir} could not be read: {done.stderr.strip()[-300:]}. "
            "Delete that folder; chambers extracts it again."
        )
    return set(json.loads(done.stdout))


def load_tokenizer(base: Path, *, cache: Path | None = None, converter_dir: Path | None = None) -> Any:
    """The base's tokenizer alone, read before any weights: the pairs' lengths are decided with it, so
    a length that leaves too few pairs is refused in seconds, not after the base has loaded."""
    from transformers import AutoTokenizer

    from corrections.train_cache import cached_architecture
    from corrections.train_loop import quiet_library_notices

    quiet_library_notices()
    if cache is not None and converter_dir is not None and cached_architecture(cache, converter_dir):
        base = cache
    if _is_gguf(base):
        tokenizer = AutoTokenizer.from_pretrained(base.parent, gguf_file=base.name)
    else:
        tokenizer = AutoTokenizer.from_pretrained(base)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


def load_base(
    base: Path,
    architecture: str,
    work_dir: Path,
    *,
    device: str,
    quantize_4bit: bool,
    cache: Path | None = None,
    converter_dir: Path | None = None,
    tokenizer: Any = None,
) -> LoadedBase:
    """Load the base for training and write its config folder under ``work_dir``.

    On CUDA the base is fp16 (V100s have no bf16), or 4-bit through bitsandbytes when asked (QLoRA);
    on the CPU it is fp32, which is what CPU kernels are fast at. With ``cache`` (train_cache.py) a
    GGUF base is read from its dequantized copy there when one is whole, and the copy is made when not.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from corrections.train_cache import cached_architecture, save_base
    from corrections.train_loop import quiet_library_notices

    quiet_library_notices()
    from_cache = cache is not None and converter_dir is not None and cached_architecture(cache, converter_dir)
    if from_cache:
        base = cache  # type: ignore[assignment]  # a Hugging Face folder from here on
    kwargs: dict[str, Any] = {"dtype": torch.float16 if device == "cuda" else torch.float32}
    if _is_gguf(base):
        kwargs["gguf_file"] = base.name
    if quantize_4bit:
        if device != "cuda":
            raise UnsupportedBase("A 4-bit (QLoRA) base needs a CUDA GPU; train without --4bit on the CPU.")
        try:
            from transformers import BitsAndBytesConfig
        except ImportError as exc:
            raise UnsupportedBase("4-bit training needs bitsandbytes: pip install bitsandbytes.") from exc
        kwargs["quantization_config"] = BitsAndBytesConfig(
            load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.float16
        )
        kwargs["device_map"] = {"": 0}
    source = base.parent if _is_gguf(base) else base
    tok_kwargs = {"gguf_file": base.name} if _is_gguf(base) else {}
    if tokenizer is None:
        tokenizer = AutoTokenizer.from_pretrained(source, **tok_kwargs)
    model: Any = AutoModelForCausalLM.from_pretrained(source, **kwargs)
    if quantize_4bit:
        from peft import prepare_model_for_kbit_training

        model = prepare_model_for_kbit_training(model)
    elif device == "cuda":
        model.cuda()  # in place: a module moves its own parameters
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    config_dir = work_dir / "base_config"
    config_dir.mkdir(parents=True, exist_ok=True)
    model.config.save_pretrained(config_dir)
    tokenizer.save_pretrained(config_dir)
    _fix_config(config_dir / "config.json", architecture)
    if cache is not None and converter_dir is not None and not from_cache:
        save_base(cache, model, config_dir, architecture, converter_dir)
    return LoadedBase(model=model, tokenizer=tokenizer, architecture=architecture, config_dir=config_dir)


def _fix_config(path: Path, architecture: str) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    data["architectures"] = [architecture]
    data.pop("quantization_config", None)  # describes the GGUF's quantization, which the converter rejects
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
