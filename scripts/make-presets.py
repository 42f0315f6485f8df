#!/usr/bin/env python3
"""Writes presets/<id>.json from presets/models.json (run from the repository root).

The architecture block copies models.json's field names verbatim; the training, hardware and
cost blocks are each preset's teaching defaults, chosen here and documented in docs/presets.md.
Re-run after models.json changes: python3 scripts/make-presets.py (reads presets/models.json)
"""
import json
import sys

ARCH_KEYS = ["layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "ffn_kind", "vocab",
             "max_positions", "learned_positions", "tied_embeddings", "bias", "attention_bias", "mlp_bias",
             "attention_sinks", "norm", "attention", "mla", "moe", "mtp_layers",
             # issue 29 §2: layers of other kinds than full attention, and Qwen3-Next's gated attention
             "layer_kinds", "gated_attention"]

# Per-preset defaults: context the model was trained at, the hardware it is usually discussed on.
DEFAULTS = {
    "gpt2-small": {"training": {"seq_len": 1024, "micro_batch": 8}, "hardware": {"gpu": "RTX4090"}},
    "gpt3-175b": {"training": {"seq_len": 2048, "checkpointing": "none", "flash_attention": False},
                  "hardware": {"gpu": "A100-80GB"}},
    "llama2-7b": {"training": {"seq_len": 4096}},
    "llama3-8b": {"training": {"seq_len": 8192}},
    "llama3-70b": {"training": {"seq_len": 8192}},
    "llama3.1-405b": {"training": {"seq_len": 8192, "checkpointing": "selective"},
                      "hardware": {"gpus": 16384, "tp": 8, "pp": 16, "zero_stage": 1},
                      "cost": {"tokens": 15.6e12, "mfu": 0.40, "price_per_gpu_hour": 2.0}},
    "mixtral-8x7b": {"training": {"seq_len": 4096}},
    "deepseek-v3": {"training": {"precision": "fp8-mixed", "seq_len": 4096, "checkpointing": "selective"},
                    "hardware": {"gpu": "H800", "gpus": 2048, "pp": 16, "ep": 64, "zero_stage": 1},
                    # MFU implied by the report: 2.788M H800-hours for 14.8T tokens at the fp8
                    # dense peak (docs/accounting.md, "Receipts").
                    "cost": {"tokens": 14.8e12, "mfu": 0.1908, "price_per_gpu_hour": 2.0}},
    "qwen3.8-book": {"training": {"seq_len": 8192}, "hardware": {"gpus": 1}},
    # Served as it ships (experts in MXFP4, the rest bf16) on the one 80 GB GPU its model card names.
    "gpt-oss-120b": {"training": {"mode": "inference", "inference_weights": "mxfp4", "seq_len": 8192}},
    # The chapter's "a real model near 2.4T": 1T does not fit one GPU either.
    "kimi-k2": {"training": {"seq_len": 4096}},
}


def scenario(m):
    s = {"schema": "trainmem/scenario@1", "id": m["id"], "name": m["name"], "source": m["source"]}
    model = {}
    if m.get("size_only"):
        model["params"] = m["params_total"]
        model["active_params"] = m.get("params_active", m["params_total"])
    else:
        arch = {k: m[k] for k in ARCH_KEYS if k in m}
        if m["ffn_kind"] == "gelu":
            arch["dropout"] = True  # GPT-2/3 were trained with dropout (Korthikanti's configuration)
        model["architecture"] = arch
    model["published_params"] = m["params_total"]
    if "params_active" in m:
        model["published_active_params"] = m["params_active"]
    s["model"] = model
    d = DEFAULTS.get(m["id"], {})
    s["training"] = {"mode": "training", "precision": "bf16-mixed", "optimizer": "adamw", "seq_len": 4096,
                     "micro_batch": 1, "checkpointing": "none", "flash_attention": True}
    s["training"].update(d.get("training", {}))
    s["hardware"] = {"gpu": "H100", "gpus": 1, "zero_stage": 0}
    s["hardware"].update(d.get("hardware", {}))
    if "cost" in d:
        s["cost"] = d["cost"]
    if "params_note" in m:
        s["description"] = m["params_note"]
    return s


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "presets/models.json"
    models = json.load(open(src))["models"]
    for m in models:
        with open(f"presets/{m['id']}.json", "w") as f:
            json.dump(scenario(m), f, indent=2)
            f.write("\n")
        print("presets/%s.json" % m["id"])


if __name__ == "__main__":
    main()
