/*
 * nvml.c - see nvml.h. The prototypes below are NVML's documented C ABI
 * (NVIDIA Management Library API reference: nvmlInit_v2,
 * nvmlDeviceGetHandleByPciBusId_v2, nvmlDeviceGetClockInfo,
 * nvmlDeviceGetPowerUsage, nvmlShutdown); nvml.h itself is not needed.
 */
#define _GNU_SOURCE
#include "nvml.h"

#include <dlfcn.h>
#include <stdlib.h>

typedef int nvml_ret;                      /* nvmlReturn_t; 0 is NVML_SUCCESS */
typedef struct nvml_device_opaque *nvml_dev; /* nvmlDevice_t */
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 }; /* nvmlClockType_t */

struct sl_nvml {
    void *lib;
    nvml_dev dev;
    nvml_ret (*shutdown)(void);
    nvml_ret (*clock)(nvml_dev, int, unsigned int *);
    nvml_ret (*power)(nvml_dev, unsigned int *);
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
