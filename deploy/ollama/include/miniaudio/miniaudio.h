/* anvilbench's stand-in for miniaudio.h. llama.cpp keeps the real header under vendor/,
 * which Go's module zips leave out, so a build of Ollama from the module proxy lacks it.
 * Only tools/mtmd/mtmd-helper.cpp includes it, to decode audio input for multimodal
 * models; here every decode fails, so audio is refused and text inference is untouched.
 * It declares exactly what mtmd-helper.cpp calls. */
#ifndef ANVILBENCH_MINIAUDIO_STANDIN_H
#define ANVILBENCH_MINIAUDIO_STANDIN_H

#include <stddef.h>
#include <stdint.h>

typedef int32_t ma_result;
typedef uint32_t ma_uint32;
typedef uint64_t ma_uint64;

enum { MA_SUCCESS = 0, MA_NOT_IMPLEMENTED = -29 };

typedef enum { ma_format_unknown = 0, ma_format_u8, ma_format_s16, ma_format_s24, ma_format_s32, ma_format_f32 } ma_format;

typedef struct {
	ma_format format;
	ma_uint32 channels;
	ma_uint32 sampleRate;
} ma_decoder_config;

typedef struct {
	ma_decoder_config config;
} ma_decoder;

static inline ma_decoder_config ma_decoder_config_init(ma_format format, ma_uint32 channels, ma_uint32 sampleRate) {
	ma_decoder_config config = {format, channels, sampleRate};
	return config;
}

static inline ma_result ma_decoder_init_memory(const void *data, size_t size, const ma_decoder_config *config, ma_decoder *decoder) {
	(void)data, (void)size, (void)config, (void)decoder;
	return MA_NOT_IMPLEMENTED;
}

static inline ma_result ma_decoder_get_length_in_pcm_frames(ma_decoder *decoder, ma_uint64 *frames) {
	(void)decoder;
	*frames = 0;
	return MA_NOT_IMPLEMENTED;
}

static inline ma_result ma_decoder_read_pcm_frames(ma_decoder *decoder, void *out, ma_uint64 frames, ma_uint64 *read) {
	(void)decoder, (void)out, (void)frames;
	*read = 0;
	return MA_NOT_IMPLEMENTED;
}

static inline ma_result ma_decoder_uninit(ma_decoder *decoder) {
	(void)decoder;
	return MA_SUCCESS;
}

#endif
