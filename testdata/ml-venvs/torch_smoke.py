import torch
import transformers
import peft
import accelerate
import datasets
from transformers import GPT2Config, GPT2LMHeadModel
from peft import LoraConfig, get_peft_model
from accelerate import Accelerator
from transformers import Trainer, TrainingArguments  # noqa: F401 (the trainer API must import)

ds = datasets.Dataset.from_dict({"x": [[1, 2, 3, 4, 5, 6, 7, 8]] * 8}).map(
    lambda r: {"input_ids": r["x"]}
)
ds.set_format("torch", columns=["input_ids"])
cfg = GPT2Config(n_layer=2, n_head=2, n_embd=32, vocab_size=64, n_positions=16)
model = get_peft_model(
    GPT2LMHeadModel(cfg),
    LoraConfig(r=4, target_modules=["c_attn"], task_type="CAUSAL_LM"),
)
acc = Accelerator(cpu=True)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
dl = torch.utils.data.DataLoader(ds, batch_size=4)
model, opt, dl = acc.prepare(model, opt, dl)
for b in dl:
    out = model(input_ids=b["input_ids"], labels=b["input_ids"])
    acc.backward(out.loss)
    opt.step()
    opt.zero_grad()
print(
    "ok torch",
    torch.__version__,
    "transformers",
    transformers.__version__,
    "peft",
    peft.__version__,
    "accelerate",
    accelerate.__version__,
    "datasets",
    datasets.__version__,
    round(float(out.loss), 3),
)
