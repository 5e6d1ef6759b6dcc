"""The synthetic texts of the demo model's stages (docs/demo-model.md), and the loss a checkpoint
gives them: shared by scripts/make-copy-text, make-ledger-text, probe-copying and probe-ledger, so
a probe measures exactly the text a stage trained on (drawn from another seed).

Python's random.Random is stable across versions, so a seeded text is the same on every machine."""
import json
import math
import string
import subprocess

CODE_ALPHABET = string.ascii_uppercase + string.digits  # the niah needle's alphabet
MIN_AMOUNT = 10  # plugins/task_tx_log/tx_log_generator.cpp's kMinAmount
ARROW = "\u2192"


def copy_block(rng, count, shuffled):
    """`count` random 8-character codes, then the same codes again (permuted when `shuffled`).
    Returns (prefix, text): the second list starts at len(prefix), a code every 9 characters."""
    codes = ["".join(rng.choice(CODE_ALPHABET) for _ in range(8)) for _ in range(count)]
    again = codes[:]
    if shuffled:
        rng.shuffle(again)
    prefix = f"codes: {' '.join(codes)}\nagain: "
    return prefix, prefix + " ".join(again)


PRINTABLE = "".join(chr(c) for c in range(33, 127))  # printable ASCII without the space


def repeat_block(rng):
    """A random string of 6 to 40 printable characters, a random filler of 0 to 40, the string
    again: "S F S\n". Returns (prefix, text): the repetition starts at len(prefix). The distance
    between the copies varies, and a character repeats little among 94, so only an induction head
    (attend to the character after the earlier occurrence of the current one, and copy it)
    predicts the repetition."""
    string_ = "".join(rng.choice(PRINTABLE) for _ in range(rng.randint(6, 40)))
    filler = "".join(rng.choice(PRINTABLE) for _ in range(rng.randint(0, 40)))
    prefix = f"{string_} {filler} "
    return prefix, prefix + string_ + "\n"


def periodic_block(rng):
    """A random string of 3 to 24 printable characters repeated to a line of about 60 to 140
    (at least twice). Every repetition predicts the next, and the line's few characters are all
    in view: a head that copies whatever tokens it sees pays at once, before it knows where."""
    string_ = "".join(rng.choice(PRINTABLE) for _ in range(rng.randint(3, 24)))
    return string_ * max(2, rng.randint(60, 140) // len(string_)) + "\n"


def _transfer(tx, balance, payer, amount):
    """One line in tx_log's format; moves `amount` from `payer` to the other account."""
    payee = 1 - payer
    names = "AB"
    line = (f"[TX{tx:03d}]: Transfer ${amount}: "
            f"{names[payer]}={balance[payer]} {ARROW} {balance[payer] - amount}, "
            f"{names[payee]}={balance[payee]} {ARROW} {balance[payee] + amount}")
    balance[payer] -= amount
    balance[payee] += amount
    return line


def ledger(rng):
    """A two-account ledger of 4 to 9 transfers from a random id (TX001 to TX590) in which one line
    overdraws its payer and the next repays the debt, then the tx_log answer naming that line.
    Amounts follow plugins/task_tx_log/tx_log_generator.cpp. Returns (text, answer_id): the text
    ends with the answer line and a blank line; answer_id is the three digits it names."""
    count = rng.randint(4, 9)
    overdraft_at = rng.randint(0, count - 2)  # the repayment line follows it
    first = rng.randint(1, 590)
    balance = [100 * rng.randint(20, 60), 100 * rng.randint(20, 60)]
    initial = {"account_A": balance[0], "account_B": balance[1], "total": sum(balance)}
    lines = [f"Initial state: {json.dumps(initial)}", "Transaction logs:"]
    for i in range(count):
        tx = first + i
        if i == overdraft_at:
            payer = rng.randint(0, 1)
            overdraft = rng.randint(1, max(1, min(balance[payer] // 4, 500)))
            lines.append(_transfer(tx, balance, payer, balance[payer] + overdraft))
        elif i == overdraft_at + 1:
            debtor = 0 if balance[0] < 0 else 1
            debt = -balance[debtor]
            richest = 1 - debtor
            amount = debt + rng.randint(MIN_AMOUNT, max(MIN_AMOUNT, min(500, balance[richest] - debt)))
            lines.append(_transfer(tx, balance, richest, min(amount, balance[richest])))
        else:
            payer = rng.randint(0, 1)
            if balance[payer] < 2 * MIN_AMOUNT:
                payer = 1 - payer
            amount = rng.randint(MIN_AMOUNT, max(MIN_AMOUNT, balance[payer] * 9 // 10))
            lines.append(_transfer(tx, balance, payer, amount))
    answer_id = f"{first + overdraft_at:03d}"
    lines.append(json.dumps({"bug_type": "NEGATIVE_BAL", "bug_location": f"TX{answer_id}"}))
    return "\n".join(lines) + "\n\n", answer_id


def next_token_losses(cli, checkpoint, text, byte_positions):
    """The model's loss, in nats, on the tokens at `byte_positions` of `text` (studio-cli forward;
    the demo models' tokenizer gives one token per UTF-8 byte), and its greedy choices there."""
    out = subprocess.run([cli, "forward", "--model", checkpoint, "--text", text, "--positions", "all",
                          "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"{checkpoint}: {cli} forward failed: {out.stderr.strip()}")
    result = json.loads(out.stdout)
    ids = result["ids"]
    if len(ids) != len(text.encode("utf-8")):
        raise SystemExit(f"{checkpoint}: its tokenizer does not give one token per byte")
    losses, choices = [], []
    for position in byte_positions:
        row = result["logits"][position - 1]["values"]  # the logits at a position predict the next token
        top = max(row)
        losses.append(top + math.log(sum(math.exp(v - top) for v in row)) - row[ids[position]])
        choices.append(max(range(len(row)), key=row.__getitem__) == ids[position])
    return losses, choices
