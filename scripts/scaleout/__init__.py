"""The scale-out model of docs/scale-out.md: row (PETSc MPIAIJ) and 2-D (CombBLAS) partitions of
sparse matrices, the messages and bytes each rank sends for SpMV and SpGEMM, and a latency and
bandwidth model of their time. scripts/scaleout_model.py is the command; tests/scaleout/ the tests.
"""
