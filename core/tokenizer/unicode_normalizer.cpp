#include "core/tokenizer/unicode_normalizer.h"

#include <unicode/unorm2.h>
#include <unicode/ustring.h>

#include "core/common/error.h"
#include "core/common/utf8.h"

namespace studio::tokenizer {

namespace {

const UNormalizer2* icuInstance(UnicodeForm form) {
  UErrorCode status = U_ZERO_ERROR;
  const UNormalizer2* instance = nullptr;
  switch (form) {
    case UnicodeForm::NFC:
      instance = unorm2_getNFCInstance(&status);
      break;
    case UnicodeForm::NFD:
      instance = unorm2_getNFDInstance(&status);
      break;
    case UnicodeForm::NFKC:
      instance = unorm2_getNFKCInstance(&status);
      break;
    case UnicodeForm::NFKD:
      instance = unorm2_getNFKDInstance(&status);
      break;
  }
  if (U_FAILURE(status) || !instance) {
    throw Error(ErrorKind::Internal, "ICU", "",
                std::string("normalizer unavailable: ") + u_errorName(status));
  }
  return instance;
}

std::u16string toUtf16(std::string_view text) {
  std::u16string out(text.size() + 1, u'\0');
  int32_t length = 0;
  UErrorCode status = U_ZERO_ERROR;
  u_strFromUTF8(reinterpret_cast<UChar*>(out.data()), static_cast<int32_t>(out.size()), &length,
                text.data(), static_cast<int32_t>(text.size()), &status);
  if (U_FAILURE(status)) {
    throw Error(ErrorKind::Internal, "ICU", "",
                std::string("UTF-8 to UTF-16: ") + u_errorName(status));
  }
  out.resize(length);
  return out;
}

std::string toUtf8(const std::u16string& text) {
  std::string out(text.size() * 3 + 1, '\0');
  int32_t length = 0;
  UErrorCode status = U_ZERO_ERROR;
  u_strToUTF8(out.data(), static_cast<int32_t>(out.size()), &length,
              reinterpret_cast<const UChar*>(text.data()), static_cast<int32_t>(text.size()),
              &status);
  if (U_FAILURE(status)) {
    throw Error(ErrorKind::Internal, "ICU", "",
                std::string("UTF-16 to UTF-8: ") + u_errorName(status));
  }
  out.resize(length);
  return out;
}

bool isAscii(std::string_view text) {
  for (char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

// One normalization form over valid UTF-8, origins into `text`.
AlignedText normalizeOne(const UNormalizer2* form, std::string_view text) {
  AlignedText out;
  // ASCII is invariant under every form, and most text is already normalized.
  if (isAscii(text)) {
    out.text.assign(text);
    return out;
  }
  UErrorCode status = U_ZERO_ERROR;
  const std::u16string wide = toUtf16(text);
  if (unorm2_isNormalized(form, reinterpret_cast<const UChar*>(wide.data()),
                          static_cast<int32_t>(wide.size()), &status) &&
      U_SUCCESS(status)) {
    out.text.assign(text);
    return out;
  }
  // Split at normalization boundaries; each run between two boundaries normalizes on its own.
  out.text.reserve(text.size() + 16);
  out.origin.reserve(text.size() + 16);
  const auto flush = [&](std::size_t begin, std::size_t end) {
    const std::string_view run = text.substr(begin, end - begin);
    std::string normalized;
    if (run.size() == 1) {
      normalized.assign(run);
    } else {
      const std::u16string source = toUtf16(run);
      UErrorCode run_status = U_ZERO_ERROR;
      std::u16string result(source.size() * 4 + 8, u'\0');
      const int32_t length = unorm2_normalize(form, reinterpret_cast<const UChar*>(source.data()),
                                              static_cast<int32_t>(source.size()),
                                              reinterpret_cast<UChar*>(result.data()),
                                              static_cast<int32_t>(result.size()), &run_status);
      if (U_FAILURE(run_status)) {
        throw Error(ErrorKind::Internal, "ICU", "",
                    std::string("normalize: ") + u_errorName(run_status));
      }
      result.resize(length);
      normalized = toUtf8(result);
    }
    if (normalized == run) {
      for (std::size_t k = begin; k < end; ++k) {
        out.origin.push_back({static_cast<std::int64_t>(k), static_cast<std::int64_t>(k + 1)});
      }
    } else {
      for (std::size_t k = 0; k < normalized.size(); ++k) {
        out.origin.push_back({static_cast<std::int64_t>(begin), static_cast<std::int64_t>(end)});
      }
    }
    out.text += normalized;
  };
  std::size_t run_begin = 0;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t at = i;
    const char32_t cp = utf8::decodeAt(text, i);
    if (at > run_begin && unorm2_hasBoundaryBefore(form, static_cast<UChar32>(cp))) {
      flush(run_begin, at);
      run_begin = at;
    }
  }
  if (run_begin < text.size()) flush(run_begin, text.size());
  return out;
}

}  // namespace

AlignedText normalizeUnicode(UnicodeForm form, std::string_view text) {
  return normalizeOne(icuInstance(form), text);
}

}  // namespace studio::tokenizer
