"""Per-rank message and byte counts of one point-to-point exchange.

An exchange is given as items that move from a sender rank to a receiver rank (a halo value, a
row of B, a partial sum), each with its size in bytes. All the items one rank sends another
travel in one message, so the message count is the number of distinct (sender, receiver)
pairs; a rank never sends to itself.
"""
from dataclasses import dataclass

import numpy as np

FIELDS = ("messages_sent", "bytes_sent", "messages_received", "bytes_received")


@dataclass
class Exchange:
    """Arrays indexed by rank."""
    messages_sent: np.ndarray
    bytes_sent: np.ndarray
    messages_received: np.ndarray
    bytes_received: np.ndarray

    @staticmethod
    def empty(p):
        z = np.zeros(p, dtype=np.int64)
        return Exchange(z.copy(), z.copy(), z.copy(), z.copy())

    def __add__(self, other):
        return Exchange(*(getattr(self, f) + getattr(other, f) for f in FIELDS))

    def reversed(self):
        """The reply exchange of a request: every message goes back the other way."""
        return Exchange(self.messages_received.copy(), self.bytes_received.copy(),
                        self.messages_sent.copy(), self.bytes_sent.copy())

    def rank(self, r):
        return {f: int(getattr(self, f)[r]) for f in FIELDS}


def exchange_of_items(p, sender, receiver, item_bytes):
    """The exchange moving item k from sender[k] to receiver[k] (item_bytes[k] bytes, or a
    number for all). Items with sender == receiver stay local and are not counted."""
    sender = np.asarray(sender, dtype=np.int64)
    receiver = np.asarray(receiver, dtype=np.int64)
    item_bytes = np.broadcast_to(np.asarray(item_bytes, dtype=np.int64), sender.shape)
    remote = sender != receiver
    sender, receiver, item_bytes = sender[remote], receiver[remote], item_bytes[remote]
    pairs, pair_of_item = np.unique(sender * p + receiver, return_inverse=True)
    pair_bytes = np.bincount(pair_of_item, weights=item_bytes, minlength=pairs.size)
    pair_sender, pair_receiver = pairs // p, pairs % p
    return Exchange(
        messages_sent=np.bincount(pair_sender, minlength=p).astype(np.int64),
        bytes_sent=np.rint(np.bincount(pair_sender, weights=pair_bytes, minlength=p)).astype(np.int64),
        messages_received=np.bincount(pair_receiver, minlength=p).astype(np.int64),
        bytes_received=np.rint(np.bincount(pair_receiver, weights=pair_bytes, minlength=p)).astype(np.int64))
