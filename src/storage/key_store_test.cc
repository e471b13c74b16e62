#include <gtest/gtest.h>

#include <set>

#include "engram/keys.h"
#include "storage/sqlite.h"
#include "testing/record_support.h"

namespace engram {
namespace {

class KeyStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = KeyStore::Open(dir_.File("e.db"), &clock_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }
  testing::TempDir dir_;
  ManualClock clock_{1'700'000'000'000};
  std::unique_ptr<KeyStore> store_;
};

TEST_F(KeyStoreTest, CreatedSecretAuthenticatesToItsTenantUntilRevoked) {
  auto key = store_->Create("acme", "ci", KeyRole::kTenant);
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(key->secret.substr(0, 4), "egk_");
  EXPECT_EQ(key->secret.size(), 4u + 43u);
  EXPECT_EQ(key->secret.substr(0, key->info.prefix.size()), key->info.prefix);

  auto who = store_->Authenticate(key->secret);
  ASSERT_TRUE(who.ok());
  EXPECT_EQ(who->tenant, "acme");
  EXPECT_EQ(who->id, key->info.id);
  EXPECT_EQ(who->role, KeyRole::kTenant);
  EXPECT_EQ(*store_->CountActive(), 1);

  clock_.Advance(1000);
  ASSERT_TRUE(store_->Revoke(key->info.id).ok());
  EXPECT_EQ(store_->Authenticate(key->secret).status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(*store_->CountActive(), 0);
  EXPECT_TRUE(store_->Revoke(key->info.id).ok());  // again: no change
  auto listed = store_->List();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ(*(*listed)[0].revoked_at, 1'700'000'001'000);
}

TEST_F(KeyStoreTest, WrongOrMangledSecretsAreDenied) {
  auto key = store_->Create("acme", "", KeyRole::kAdmin);
  ASSERT_TRUE(key.ok());
  std::string mangled = key->secret;
  mangled.back() = mangled.back() == 'A' ? 'B' : 'A';
  for (const std::string& s : {mangled, std::string(""), std::string("egk_"), key->info.id,
                               key->info.prefix, std::string(300, 'x')}) {
    EXPECT_EQ(store_->Authenticate(s).status().code(), StatusCode::kPermissionDenied) << s;
  }
  EXPECT_EQ(store_->Revoke("key_nope").code(), StatusCode::kNotFound);
}

TEST_F(KeyStoreTest, OnlyAHashOfTheSecretIsStored) {
  auto key = store_->Create("acme", "n", KeyRole::kTenant);
  ASSERT_TRUE(key.ok());
  auto db = Database::Open(dir_.File("e.db"), DatabaseOptions{.read_only = true});
  ASSERT_TRUE(db.ok());
  auto st = (*db)->PrepareUncached("SELECT * FROM api_keys");
  ASSERT_TRUE(st.ok());
  ASSERT_TRUE(*(*st)->Step());
  for (int col = 0; col < 8; ++col) {
    const char* data = static_cast<const char*>((*st)->Blob(col));
    const std::string cell = data ? std::string(data, (*st)->BlobSize(col)) : "";
    EXPECT_EQ(cell.find(key->secret.substr(10)), std::string::npos) << "column " << col;
  }
}

TEST_F(KeyStoreTest, ListFiltersByTenantAndKeysAreDistinct) {
  std::set<std::string> secrets, ids;
  for (int i = 0; i < 20; ++i) {
    auto key = store_->Create(i % 2 ? "a" : "b", "k" + std::to_string(i), KeyRole::kTenant);
    ASSERT_TRUE(key.ok());
    secrets.insert(key->secret);
    ids.insert(key->info.id);
  }
  EXPECT_EQ(secrets.size(), 20u);
  EXPECT_EQ(ids.size(), 20u);
  EXPECT_EQ(store_->List("a")->size(), 10u);
  EXPECT_EQ(store_->List()->size(), 20u);
  EXPECT_EQ(store_->Create("", "x", KeyRole::kTenant).status().code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace engram
