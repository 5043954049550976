/*
 * nvml.h - current clocks and power through NVML, loaded at run time.
 *
 * NVML lives in the driver's libnvidia-ml.so.1, which exists only where a
 * driver is installed. Linking it would stop a CUDA build from starting on
 * a machine without a GPU (where streamlab must fall back to the CPU), so
 * we dlopen it and resolve the four entry points we use. Everything
 * degrades to "unknown" (-1) when the library or the device is missing.
 */
#ifndef SL_NVML_H
#define SL_NVML_H

typedef struct sl_nvml sl_nvml;

/* Open NVML and find the device with this PCI bus id ("0000:1b:00.0", from
 * cudaDeviceGetPCIBusId). Returns NULL when NVML is unavailable. */
sl_nvml *sl_nvml_open(const char *pci_bus_id);
void sl_nvml_close(sl_nvml *h);

/* Current SM and memory clocks in MHz and board power in mW; -1 each when
 * the query fails. */
void sl_nvml_sample(sl_nvml *h, int *sm_mhz, int *mem_mhz, int *power_mw);

/* The record (env_record.h): driver version, UUID, persistence and
 * compute modes; fields NVML cannot give are left as they are. */
struct sl_env_static;
struct sl_env_sample;
void sl_nvml_static(sl_nvml *h, struct sl_env_static *out);
/* Clocks, power, temperature, clock-event reasons and the power and
 * thermal violation counters now; out->valid false without NVML. */
void sl_nvml_env(sl_nvml *h, struct sl_env_sample *out);

#endif /* SL_NVML_H */
