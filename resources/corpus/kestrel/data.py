"""Tokenisation and batching: a byte-level tokenizer, packed datasets and padded batches."""

import random
from typing import Iterator, List, Optional, Sequence, Tuple

import torch


class ByteTokenizer:
    """Bytes 0-255 as tokens, plus BOS and EOS after them."""

    def __init__(self):
        self.bos_id = 256
        self.eos_id = 257
        self.pad_id = 258
        self.vocab_size = 259

    def encode(self, text: str, add_bos: bool = True, add_eos: bool = False) -> List[int]:
        ids = list(text.encode("utf-8"))
        if add_bos:
            ids = [self.bos_id] + ids
        if add_eos:
            ids = ids + [self.eos_id]
        return ids

    def decode(self, ids: Sequence[int]) -> str:
        data = bytes(i for i in ids if i < 256)
        return data.decode("utf-8", errors="replace")


class PackedDataset:
    """Concatenates documents separated by EOS and cuts the stream into fixed-length windows."""

    def __init__(self, documents: List[List[int]], seq_len: int, eos_id: int):
        stream: List[int] = []
        for doc in documents:
            stream.extend(doc)
            stream.append(eos_id)
        self.seq_len = seq_len
        # Each example needs seq_len inputs and one more token for the last target.
        self.num_examples = (len(stream) - 1) // seq_len
        self.stream = torch.tensor(stream[: self.num_examples * seq_len + 1], dtype=torch.long)

    def __len__(self) -> int:
        return self.num_examples

    def __getitem__(self, index: int) -> Tuple[torch.Tensor, torch.Tensor]:
        if index < 0 or index >= self.num_examples:
            raise IndexError(f"example {index} out of range")
        start = index * self.seq_len
        chunk = self.stream[start : start + self.seq_len + 1]
        return chunk[:-1], chunk[1:]


def pad_batch(sequences: List[List[int]], pad_id: int, max_len: Optional[int] = None):
    """Right-pads to the longest sequence; returns tokens and a mask of real positions."""
    longest = max(len(s) for s in sequences)
    if max_len is not None:
        longest = min(longest, max_len)
    tokens = torch.full((len(sequences), longest), pad_id, dtype=torch.long)
    mask = torch.zeros((len(sequences), longest), dtype=torch.bool)
    for row in range(len(sequences)):
        seq = sequences[row][:longest]
        tokens[row, : len(seq)] = torch.tensor(seq, dtype=torch.long)
        mask[row, : len(seq)] = True
    return tokens, mask


def batch_iterator(dataset, batch_size: int, shuffle: bool = True, seed: int = 0, drop_last=True):
    order = list(range(len(dataset)))
    if shuffle:
        random.Random(seed).shuffle(order)
    stop = len(order) - len(order) % batch_size if drop_last else len(order)
    for start in range(0, stop, batch_size):
        indices = order[start : start + batch_size]
        inputs, targets = zip(*(dataset[i] for i in indices))
        yield torch.stack(inputs), torch.stack(targets)


class ShuffleBuffer:
    """Approximate shuffling of a stream with a bounded buffer."""

    def __init__(self, size: int, seed: int = 0):
        self.size = size
        self.buffer = []
        self.rng = random.Random(seed)

    def __call__(self, stream) -> Iterator:
        for item in stream:
            if len(self.buffer) < self.size:
                self.buffer.append(item)
                continue
            index = self.rng.randrange(self.size)
            yield self.buffer[index]
            self.buffer[index] = item
        self.rng.shuffle(self.buffer)
        yield from self.buffer
        self.buffer = []


def split_documents(documents: List[str], valid_fraction: float, seed: int = 0):
    docs = list(documents)
    random.Random(seed).shuffle(docs)
    n_valid = max(1, int(len(docs) * valid_fraction))
    return docs[n_valid:], docs[:n_valid]


def sliding_windows(tokens: List[int], window: int, stride: int) -> List[Tuple[int, int]]:
    """(start, end) pairs covering the tokens with overlapping windows."""
    spans = []
    start = 0
    while start + window < len(tokens):
        spans.append((start, start + window))
        start += stride
    spans.append((max(0, len(tokens) - window), len(tokens)))
    return spans


def truncate_middle(tokens: List[int], max_len: int) -> List[int]:
    """Keeps the beginning and the end of a sequence that is too long."""
    if len(tokens) <= max_len:
        return tokens
    head = max_len // 2
    tail = max_len - head
    return tokens[:head] + tokens[len(tokens) - tail :]


def document_lengths(documents: List[List[int]]) -> List[int]:
    return [len(doc) for doc in documents]


def bucket_by_length(lengths: List[int], boundaries: List[int]) -> List[int]:
    """Index of the first boundary each length does not exceed (len(boundaries) if none)."""
    buckets = []
    for length in lengths:
        bucket = len(boundaries)
        for i in range(len(boundaries)):
            if length <= boundaries[i]:
                bucket = i
                break
        buckets.append(bucket)
    return buckets
