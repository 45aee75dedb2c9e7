// Reading the speech samples (scripts/models/make-samples.sh) for the example programs.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

// Reads a mono 16-bit PCM WAV file of the given rate into floats in [-1, 1].
inline bool read_wav(const char * path, uint32_t sample_rate, std::vector<float> & samples, std::string & error) {
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        error = "cannot open file";
        return false;
    }
    std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    auto u16 = [&](size_t at) { return uint16_t(uint8_t(bytes[at]) | uint8_t(bytes[at + 1]) << 8); };
    auto u32 = [&](size_t at) { return uint32_t(u16(at)) | uint32_t(u16(at + 2)) << 16; };
    if (bytes.size() < 12 || std::memcmp(bytes.data(), "RIFF", 4) != 0 || std::memcmp(bytes.data() + 8, "WAVE", 4) != 0) {
        error = "not a RIFF/WAVE file";
        return false;
    }
    bool have_format = false;
    // Walk the chunks: "fmt " describes the samples, "data" holds them.
    for (size_t at = 12; at + 8 <= bytes.size();) {
        const uint32_t size = u32(at + 4);
        const size_t body = at + 8;
        if (body + size > bytes.size()) {
            error = "truncated chunk";
            return false;
        }
        if (std::memcmp(&bytes[at], "fmt ", 4) == 0 && size >= 16) {
            const uint16_t format = u16(body), channels = u16(body + 2), bits = u16(body + 14);
            const uint32_t rate = u32(body + 4);
            if (format != 1 || channels != 1 || bits != 16 || rate != sample_rate) {
                error = "expected " + std::to_string(sample_rate) + " Hz mono 16-bit PCM (got format " +
                        std::to_string(format) + ", " + std::to_string(channels) + " channels, " +
                        std::to_string(bits) + " bits, " + std::to_string(rate) + " Hz)";
                return false;
            }
            have_format = true;
        } else if (std::memcmp(&bytes[at], "data", 4) == 0) {
            if (!have_format) {
                error = "data chunk before fmt chunk";
                return false;
            }
            samples.resize(size / 2);
            for (size_t i = 0; i < samples.size(); i++) {
                samples[i] = float(int16_t(u16(body + 2 * i))) / 32768.0f;
            }
            return true;
        }
        at = body + size + (size & 1);
    }
    error = "no data chunk";
    return false;
}
