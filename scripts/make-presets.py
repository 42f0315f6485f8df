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
             "attention_sinks", "norm", "norms_per_layer", "qk_norm", "dropout", "attention", "mla", "moe",
             "mtp_layers",
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
                      "training_extra": {"grad_accum": 16},
                      "hardware": {"gpus": 16384, "tp": 8, "pp": 16, "zero_stage": 1},
                      "cost": {"tokens": 15.6e12, "mfu": 0.40, "price_per_gpu_hour": 2.0}},
    "mixtral-8x7b": {"training": {"seq_len": 4096}},
    "deepseek-v3": {"training": {"precision": "fp8-mixed", "seq_len": 4096, "checkpointing": "selective"},
                    "training_extra": {"grad_accum": 120},
                    "hardware": {"gpu": "H800", "gpus": 2048, "pp": 16, "ep": 64, "zero_stage": 1},
                    # MFU implied by the report: 2.664M pre-training H800-hours for 14.8T tokens at the fp8
                    # dense peak, the context extension and post-training hours beside them
                    # (docs/accounting.md, "Receipts").
                    "cost": {"tokens": 14.8e12, "mfu": 0.1996, "price_per_gpu_hour": 2.0,
                             "other_phases": [{"name": "context extension", "gpu_hours": 119000},
                                              {"name": "post-training", "gpu_hours": 5000}]}},
    "qwen3.8-book": {"training": {"seq_len": 8192}, "hardware": {"gpus": 1}},
    # Served as it ships (experts in MXFP4, the rest bf16) on the one 80 GB GPU its model card names.
    "gpt-oss-120b": {"training": {"mode": "inference", "inference_weights": "mxfp4", "seq_len": 8192}},
    # The chapter's "a real model near 2.4T": 1T does not fit one GPU either.
    "kimi-k2": {"training": {"seq_len": 4096}},
    # Served on one 8-GPU node with 8-bit weights (Meta also releases Maverick in FP8), at 128k: the 36
    # chunked layers keep 8192 tokens of KV each, the 12 global ones the whole context.
    "llama4-maverick": {"training": {"mode": "inference", "inference_weights": "int8", "seq_len": 131072},
                        "hardware": {"gpus": 8, "tp": 8}},
    # Served as Qwen's model card deploys it (vLLM and SGLang: tensor parallel on 4 GPUs, 262,144 tokens of
    # context): 12 layers of KV cache and 36 Gated DeltaNet states.
    "qwen3-next-80b-a3b": {"training": {"mode": "inference", "seq_len": 262144},
                           "hardware": {"gpus": 4, "tp": 4}},
    # Its 256K context served in bf16 on one H200: 6 attention layers of KV cache and 23 Mamba-2 states, small
    # beside the 63 GB of weights and the prefill's activations (on one H100 the prefill stops fitting past 64k).
    "nemotron-3-nano-30b-a3b": {"training": {"mode": "inference", "seq_len": 262144}, "hardware": {"gpu": "H200"}},
    # Its 256K context served in bf16 on one node of 8 H100s, tensor parallel 8: 8 attention layers of KV cache and
    # 40 Mamba-2 states beside 30 GB of weights a GPU.
    "nemotron-3-super-120b-a12b": {"training": {"mode": "inference", "seq_len": 262144},
                                   "hardware": {"gpus": 8, "tp": 8}},
}


def scenario(m):
    s = {"schema": "trainmem/scenario@1", "id": m["id"], "name": m["name"], "source": m["source"]}
    model = {}
    if m.get("size_only"):
        model["params"] = m["params_total"]
        model["active_params"] = m.get("params_active", m["params_total"])
    else:
        arch = {k: m[k] for k in ARCH_KEYS if k in m}
        if m["ffn_kind"] == "gelu" and "dropout" not in m:
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
    if "training_extra" in d:  # after micro_batch, where the scenario format lists it
        t = {}
        for k, v in s["training"].items():
            t[k] = v
            if k == "micro_batch":
                t.update(d["training_extra"])
        s["training"] = t
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
