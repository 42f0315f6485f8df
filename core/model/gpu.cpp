#include "gpu.h"

#include "jsontext.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace trainmem {
namespace {

bool sameText(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

} // namespace

const GpuSpec* GpuCatalog::find(std::string_view idOrName) const
{
    for (const GpuSpec& g : gpus)
        if (sameText(g.id, idOrName) || sameText(g.name, idOrName))
            return &g;
    return nullptr;
}

GpuCatalog parseGpuCatalog(std::string_view text, const std::string& file)
{
    using nlohmann::json;
    GpuCatalog out;
    json doc;
    try {
        doc = json::parse(text.begin(), text.end());
    } catch (const json::exception& e) {
        out.errors.push_back({file, "", "not valid JSON: " + jsonErrorText(e)});
        return out;
    }
    if (!doc.is_object() || !doc.contains("schema") || doc["schema"] != "trainmem/gpus@1") {
        out.errors.push_back({file, "/schema", "must be \"trainmem/gpus@1\""});
        return out;
    }
    if (!doc.contains("gpus") || !doc["gpus"].is_array()) {
        out.errors.push_back({file, "/gpus", "must be an array of GPUs"});
        return out;
    }
    const json& list = doc["gpus"];
    for (size_t i = 0; i < list.size(); ++i) {
        const std::string p = "/gpus/" + std::to_string(i);
        const json& g = list[i];
        if (!g.is_object()) {
            out.errors.push_back({file, p, "must be an object"});
            continue;
        }
        GpuSpec spec;
        bool good = true;
        auto str = [&](const char* key, std::string& dst, bool required) {
            if (!g.contains(key)) {
                if (required) {
                    out.errors.push_back({file, p + "/" + key, "is required"});
                    good = false;
                }
                return;
            }
            if (!g[key].is_string() || g[key].get<std::string>().empty()) {
                out.errors.push_back({file, p + "/" + key, "must be a non-empty string"});
                good = false;
                return;
            }
            dst = g[key].get<std::string>();
        };
        auto num = [&](const char* key, double& dst, double min, double max, bool required) {
            if (!g.contains(key)) {
                if (required) {
                    out.errors.push_back({file, p + "/" + key, "is required"});
                    good = false;
                }
                return;
            }
            const double v = g[key].is_number() ? g[key].get<double>() : NAN;
            if (!std::isfinite(v) || v < min || v > max) {
                out.errors.push_back({file, p + "/" + key,
                                      "must be a number between " + jsonText(json(min)) + " and " +
                                          jsonText(json(max)) + ", got " + jsonText(g[key])});
                good = false;
                return;
            }
            dst = v;
        };
        str("id", spec.id, true);
        str("name", spec.name, true);
        str("source", spec.source, true);
        str("note", spec.note, false);
        double memoryGb = 0;
        num("memory_gb", memoryGb, 0.001, 1e6, true);
        spec.memoryBytes = memoryGb * 1e9;
        num("bf16_tflops", spec.bf16Tflops, 0.001, 1e6, true);
        spec.fp8Tflops = 0;
        num("fp8_tflops", spec.fp8Tflops, 0, 1e6, false);
        // price_per_hour is optional: null or absent means no public price (the receipt asks for one).
        spec.pricePerHour.reset();
        if (g.contains("price_per_hour") && !g["price_per_hour"].is_null()) {
            double price = 0;
            num("price_per_hour", price, 0, 1e4, true);
            spec.pricePerHour = price;
        }
        double hostGb = 0;
        num("host_memory_gb", hostGb, 0, 1e7, false);
        spec.hostMemoryBytes = hostGb * 1e9;
        for (const auto& [k, v] : g.items())
            if (k != "id" && k != "name" && k != "source" && k != "memory_gb" && k != "bf16_tflops" &&
                k != "fp8_tflops" && k != "price_per_hour" && k != "host_memory_gb" && k != "note")
                out.errors.push_back({file, p + "/" + k, "unknown field"});
        if (good && out.find(spec.id)) {
            out.errors.push_back({file, p + "/id", "duplicates an earlier GPU id \"" + spec.id + "\""});
            good = false;
        }
        if (good)
            out.gpus.push_back(std::move(spec));
    }
    return out;
}

} // namespace trainmem
