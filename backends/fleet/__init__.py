"""The fleet: GPUs (NVML, dcgm-exporter, recordings), NVLink boards, and the model servers on them.

Everything here is headless and does its own I/O; the dashboard and the
``doctor``/``bench`` commands only present what these modules return.
"""
