/*
 * env_record.h - what the reproducibility record reads from a device
 * (issue 14), filled in by the backend (sl_backend_ops.env_static and
 * env_sample, both optional: the CPU backend has neither, and a CUDA
 * device without NVML leaves the NVML fields unknown).
 *
 * NVML sources (NVIDIA Management Library API reference):
 * nvmlSystemGetDriverVersion, nvmlDeviceGetUUID, nvmlDeviceGetPersistenceMode,
 * nvmlDeviceGetComputeMode, nvmlDeviceGetClockInfo, nvmlDeviceGetPowerUsage,
 * nvmlDeviceGetTemperature, nvmlDeviceGetCurrentClocksEventReasons (formerly
 * ...ThrottleReasons) and nvmlDeviceGetViolationStatus.
 */
#ifndef SL_ENV_RECORD_H
#define SL_ENV_RECORD_H

#include <stdbool.h>

/* NVML's clock-event (throttle) reason bits (nvmlClocksEventReason*). */
#define SL_CLK_GPU_IDLE 0x1ULL
#define SL_CLK_APP_CLOCKS 0x2ULL
#define SL_CLK_SW_POWER_CAP 0x4ULL
#define SL_CLK_HW_SLOWDOWN 0x8ULL
#define SL_CLK_SYNC_BOOST 0x10ULL
#define SL_CLK_SW_THERMAL 0x20ULL
#define SL_CLK_HW_THERMAL 0x40ULL
#define SL_CLK_HW_POWER_BRAKE 0x80ULL
#define SL_CLK_DISPLAY_CLOCKS 0x100ULL
/* The reasons that mean the clocks were held down while working: a row
 * that saw any of them is flagged throttled. Idle, application clocks,
 * sync boost and display clocks are not. */
#define SL_CLK_THROTTLING                                                                                         \
    (SL_CLK_SW_POWER_CAP | SL_CLK_HW_SLOWDOWN | SL_CLK_SW_THERMAL | SL_CLK_HW_THERMAL | SL_CLK_HW_POWER_BRAKE)

/* Fixed for the run. Strings empty and ints -1 when unknown. */
typedef struct sl_env_static {
    char driver_version[96];   /* NVML: the display driver, "570.124.06" */
    int cuda_driver_version;   /* cudaDriverGetVersion: 12080 = 12.8 */
    int cuda_runtime_version;  /* cudaRuntimeGetVersion */
    char uuid[96];             /* "GPU-xxxxxxxx-...": NVML, else cudaDeviceProp.uuid */
    int persistence_mode;      /* 1 enabled, 0 disabled */
    int compute_mode;          /* 0 default, 1 exclusive thread, 2 prohibited, 3 exclusive process */
} sl_env_static;

/* One sample, at a row's start or end. -1 when unknown. */
typedef struct sl_env_sample {
    bool valid;                     /* NVML answered */
    int sm_mhz, mem_mhz, power_mw, temp_c;
    bool has_reasons;
    unsigned long long reasons;     /* SL_CLK_* bits active now */
    bool has_violation;
    unsigned long long power_violation_ns, thermal_violation_ns; /* NVML's running totals */
} sl_env_sample;


#endif /* SL_ENV_RECORD_H */
