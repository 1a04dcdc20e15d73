// The function registry without Lua: shebang metadata, names, collisions, and joining one set
// of libraries into another (FUNCTION RESTORE's APPEND and REPLACE). Texts checked against
// redis-server 7.0.15.
#include "engine/script/function_registry.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace keel {
namespace {

std::unique_ptr<FunctionLibrary> Library(uint64_t id, std::string name,
                                         std::vector<std::string> functions,
                                         std::vector<uint64_t>* released = nullptr) {
  auto library = std::make_unique<FunctionLibrary>(id, name, "#!lua name=" + name + "\n",
                                                   [released](uint64_t gone) {
                                                     if (released != nullptr)
                                                       released->push_back(gone);
                                                   });
  for (const std::string& function : functions) {
    EXPECT_EQ(library->AddFunction(function, std::nullopt, 0), "");
  }
  return library;
}

TEST(LibraryMetadataTest, ReadsTheShebangAsRedisDoes) {
  LibraryMetadata metadata;
  EXPECT_EQ(ExtractLibraryMetadata("#!lua name=mylib\nreturn 1", &metadata), "");
  EXPECT_EQ(metadata.engine, "lua");
  EXPECT_EQ(metadata.name, "mylib");
  EXPECT_EQ(metadata.shebang_bytes, 16u);
  EXPECT_EQ(ExtractLibraryMetadata("#!LUA NAME=x\n", &metadata), "");
  EXPECT_EQ(metadata.engine, "LUA");
  EXPECT_EQ(metadata.name, "x");
  EXPECT_EQ(ExtractLibraryMetadata("#!lua name=\"a b\"\n", &metadata), "");
  EXPECT_EQ(metadata.name, "a b") << "quoted as sdssplitargs reads it; the name check refuses it";

  EXPECT_EQ(ExtractLibraryMetadata("lua name=x\n", &metadata), "Missing library metadata");
  EXPECT_EQ(ExtractLibraryMetadata("#!lua name=x", &metadata), "Invalid library metadata");
  EXPECT_EQ(ExtractLibraryMetadata("#!lua name=\"x\n", &metadata), "Invalid library metadata");
  EXPECT_EQ(ExtractLibraryMetadata("#!lua  \n", &metadata), "Library name was not given");
  EXPECT_EQ(ExtractLibraryMetadata("#!lua name=a name=b\n", &metadata),
            "Invalid metadata value, name argument was given multiple times");
  EXPECT_EQ(ExtractLibraryMetadata("#!lua name=a foo=bar\n", &metadata),
            "Invalid metadata value given: foo=bar");
}

TEST(LibraryMetadataTest, FunctionNames) {
  EXPECT_TRUE(IsValidFunctionName("abc_XYZ_019"));
  EXPECT_FALSE(IsValidFunctionName(""));
  EXPECT_FALSE(IsValidFunctionName("a-b"));
  EXPECT_FALSE(IsValidFunctionName("a b"));
}

TEST(FunctionLibraryTest, RefusesBadAndDuplicateNames) {
  FunctionLibrary library(1, "lib", "", nullptr);
  EXPECT_EQ(library.AddFunction("f", std::string("desc"), 3), "");
  EXPECT_EQ(library.AddFunction("f", std::nullopt, 0), "Function already exists in the library");
  EXPECT_EQ(library.AddFunction("F", std::nullopt, 0), "") << "case-sensitive within a library";
  EXPECT_EQ(library.AddFunction("foo bar", std::nullopt, 0),
            "Library names can only contain letters, numbers, or underscores(_) and must be at "
            "least one character long");
  ASSERT_EQ(library.functions().size(), 2u);
  const FunctionInfo& f = library.functions().at("f");
  EXPECT_EQ(f.description, "desc");
  EXPECT_EQ(f.flags, 3u);
  EXPECT_EQ(f.library, &library);
}

TEST(FunctionRegistryTest, FindsFunctionsIgnoringCaseAndUnlinksThem) {
  std::vector<uint64_t> released;
  FunctionRegistry registry;
  registry.Link(Library(1, "lib", {"alpha", "beta"}, &released));
  EXPECT_EQ(registry.library_count(), 1u);
  EXPECT_EQ(registry.function_count(), 2u);
  ASSERT_NE(registry.FindFunction("ALPHA"), nullptr);
  EXPECT_EQ(registry.FindFunction("ALPHA")->name, "alpha");
  EXPECT_EQ(registry.FindLibrary("LIB"), nullptr) << "library names are case-sensitive";

  auto other = Library(2, "other", {"Beta"});
  ASSERT_NE(registry.FirstCollision(*other), nullptr);
  EXPECT_EQ(registry.FirstCollision(*other)->name, "Beta");

  EXPECT_EQ(registry.Unlink("nosuch"), nullptr);
  registry.Unlink("lib").reset();
  EXPECT_EQ(released, std::vector<uint64_t>{1}) << "the interpreter forgets a dropped library";
  EXPECT_EQ(registry.FindFunction("alpha"), nullptr);
  EXPECT_EQ(registry.function_count(), 0u);
}

TEST(FunctionRegistryTest, JoinAppendsOrReplacesAndChangesNothingOnFailure) {
  std::vector<uint64_t> released;
  FunctionRegistry live;
  live.Link(Library(1, "a", {"fa"}, &released));
  live.Link(Library(2, "b", {"fb"}, &released));

  FunctionRegistry clash;
  clash.Link(Library(3, "a", {"fa2"}, &released));
  EXPECT_EQ(live.Join(clash, /*replace=*/false), "Library a already exists");
  EXPECT_EQ(clash.library_count(), 1u) << "the source keeps its libraries";
  EXPECT_NE(live.FindFunction("fa"), nullptr);

  FunctionRegistry collides;
  collides.Link(Library(4, "c", {"FB"}, &released));
  EXPECT_EQ(live.Join(collides, /*replace=*/true), "Function FB already exists");
  EXPECT_TRUE(released.empty());

  // REPLACE drops the old library of the same name; its function name becomes free.
  FunctionRegistry replacement;
  replacement.Link(Library(5, "a", {"fa"}, &released));
  EXPECT_EQ(live.Join(replacement, /*replace=*/true), "");
  EXPECT_EQ(released, std::vector<uint64_t>{1});
  EXPECT_EQ(replacement.library_count(), 0u);
  ASSERT_NE(live.FindLibrary("a"), nullptr);
  EXPECT_EQ(live.FindLibrary("a")->id(), 5u);
  EXPECT_EQ(live.FindFunction("fa")->library->id(), 5u);
  EXPECT_EQ(live.function_count(), 2u);
}

}  // namespace
}  // namespace keel
