/*
 * nvml.c - see nvml.h. The prototypes below are NVML's documented C ABI
 * (NVIDIA Management Library API reference: nvmlInit_v2,
 * nvmlDeviceGetHandleByPciBusId_v2, nvmlDeviceGetClockInfo,
 * nvmlDeviceGetPowerUsage, nvmlShutdown; for the record: nvmlSystemGetDriverVersion,
 * nvmlDeviceGetUUID, nvmlDeviceGetPersistenceMode, nvmlDeviceGetComputeMode,
 * nvmlDeviceGetTemperature, nvmlDeviceGetCurrentClocksEventReasons (the
 * older name nvmlDeviceGetCurrentClocksThrottleReasons on drivers before
 * 535), nvmlDeviceGetViolationStatus); nvml.h itself is not needed. Entry
 * points an old driver lacks are left NULL and their fields unknown.
 */
#define _GNU_SOURCE
#include "nvml.h"

#include "env_record.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvml_ret;                      /* nvmlReturn_t; 0 is NVML_SUCCESS */
typedef struct nvml_device_opaque *nvml_dev; /* nvmlDevice_t */
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 }; /* nvmlClockType_t */
enum { NVML_TEMPERATURE_GPU = 0 };              /* nvmlTemperatureSensors_t */
enum { NVML_PERF_POLICY_POWER = 0, NVML_PERF_POLICY_THERMAL = 1 }; /* nvmlPerfPolicyType_t */
typedef struct nvml_violation {                 /* nvmlViolationTime_t */
    unsigned long long reference_time;          /* us, CPU time of the measurement */
    unsigned long long violation_time;          /* ns the clocks were held below the requested */
} nvml_violation;

struct sl_nvml {
    void *lib;
    nvml_dev dev;
    nvml_ret (*shutdown)(void);
    nvml_ret (*clock)(nvml_dev, int, unsigned int *);
    nvml_ret (*power)(nvml_dev, unsigned int *);
    nvml_ret (*driver)(char *, unsigned int);
    nvml_ret (*uuid)(nvml_dev, char *, unsigned int);
    nvml_ret (*persistence)(nvml_dev, int *);
    nvml_ret (*compute_mode)(nvml_dev, int *);
    nvml_ret (*temperature)(nvml_dev, int, unsigned int *);
    nvml_ret (*reasons)(nvml_dev, unsigned long long *);
    nvml_ret (*violation)(nvml_dev, int, nvml_violation *);
};

sl_nvml *sl_nvml_open(const char *pci_bus_id)
{
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return NULL;
    nvml_ret (*init)(void) = (nvml_ret(*)(void))dlsym(lib, "nvmlInit_v2");
    nvml_ret (*by_pci)(const char *, nvml_dev *) =
        (nvml_ret(*)(const char *, nvml_dev *))dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
    sl_nvml *h = calloc(1, sizeof *h);
    if (!h || !init || !by_pci || init() != 0) {
        free(h);
        dlclose(lib);
        return NULL;
    }
    h->lib = lib;
    h->shutdown = (nvml_ret(*)(void))dlsym(lib, "nvmlShutdown");
    h->clock = (nvml_ret(*)(nvml_dev, int, unsigned int *))dlsym(lib, "nvmlDeviceGetClockInfo");
    h->power = (nvml_ret(*)(nvml_dev, unsigned int *))dlsym(lib, "nvmlDeviceGetPowerUsage");
    h->driver = (nvml_ret(*)(char *, unsigned int))dlsym(lib, "nvmlSystemGetDriverVersion");
    h->uuid = (nvml_ret(*)(nvml_dev, char *, unsigned int))dlsym(lib, "nvmlDeviceGetUUID");
    h->persistence = (nvml_ret(*)(nvml_dev, int *))dlsym(lib, "nvmlDeviceGetPersistenceMode");
    h->compute_mode = (nvml_ret(*)(nvml_dev, int *))dlsym(lib, "nvmlDeviceGetComputeMode");
    h->temperature = (nvml_ret(*)(nvml_dev, int, unsigned int *))dlsym(lib, "nvmlDeviceGetTemperature");
    h->reasons = (nvml_ret(*)(nvml_dev, unsigned long long *))dlsym(lib, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!h->reasons)
        h->reasons =
            (nvml_ret(*)(nvml_dev, unsigned long long *))dlsym(lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
    h->violation = (nvml_ret(*)(nvml_dev, int, nvml_violation *))dlsym(lib, "nvmlDeviceGetViolationStatus");
    if (by_pci(pci_bus_id, &h->dev) != 0) {
        sl_nvml_close(h);
        return NULL;
    }
    return h;
}

void sl_nvml_close(sl_nvml *h)
{
    if (!h)
        return;
    if (h->shutdown)
        h->shutdown();
    dlclose(h->lib);
    free(h);
}

void sl_nvml_sample(sl_nvml *h, int *sm_mhz, int *mem_mhz, int *power_mw)
{
    unsigned int v;
    *sm_mhz = *mem_mhz = *power_mw = -1;
    if (!h)
        return;
    if (h->clock && h->clock(h->dev, NVML_CLOCK_SM, &v) == 0)
        *sm_mhz = (int)v;
    if (h->clock && h->clock(h->dev, NVML_CLOCK_MEM, &v) == 0)
        *mem_mhz = (int)v;
    if (h->power && h->power(h->dev, &v) == 0)
        *power_mw = (int)v;
}

void sl_nvml_static(sl_nvml *h, sl_env_static *out)
{
    if (!h)
        return;
    char buf[96];
    int v;
    if (h->driver && h->driver(buf, (unsigned int)sizeof buf) == 0)
        snprintf(out->driver_version, sizeof out->driver_version, "%s", buf);
    if (h->uuid && h->uuid(h->dev, buf, (unsigned int)sizeof buf) == 0)
        snprintf(out->uuid, sizeof out->uuid, "%s", buf);
    if (h->persistence && h->persistence(h->dev, &v) == 0)
        out->persistence_mode = v;
    if (h->compute_mode && h->compute_mode(h->dev, &v) == 0)
        out->compute_mode = v;
}

void sl_nvml_env(sl_nvml *h, sl_env_sample *out)
{
    memset(out, 0, sizeof *out);
    out->temp_c = -1;
    sl_nvml_sample(h, &out->sm_mhz, &out->mem_mhz, &out->power_mw);
    if (!h)
        return;
    out->valid = true;
    unsigned int t;
    if (h->temperature && h->temperature(h->dev, NVML_TEMPERATURE_GPU, &t) == 0)
        out->temp_c = (int)t;
    unsigned long long r;
    if (h->reasons && h->reasons(h->dev, &r) == 0) {
        out->reasons = r;
        out->has_reasons = true;
    }
    nvml_violation pw, th;
    if (h->violation && h->violation(h->dev, NVML_PERF_POLICY_POWER, &pw) == 0 &&
        h->violation(h->dev, NVML_PERF_POLICY_THERMAL, &th) == 0) {
        out->power_violation_ns = pw.violation_time;
        out->thermal_violation_ns = th.violation_time;
        out->has_violation = true;
    }
}
