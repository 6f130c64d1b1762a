# Writes tests/data/checkpoint/tf_keras/ with TensorFlow 2.21 + Keras 3
# (run with the oracle's Python from the repository root). The golden
# checkpoint/tf_written.dist reads these files and writes the same training
# state with dist, comparing the bytes.
import shutil
import tensorflow as tf
import keras

out = "tests/data/checkpoint/tf_keras"
shutil.rmtree(out, ignore_errors=True)
keras.utils.set_random_seed(1)
model = keras.Sequential([keras.layers.Dense(3, activation="relu", name="hidden"),
                          keras.layers.Dense(2, name="out")], name="net")
model.build((None, 4))
optimizer = keras.optimizers.Adam(name="adam")
x = tf.reshape(tf.range(8, dtype=tf.float32), (2, 4)) / 8.0 - 0.25
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(model(x) ** 2)
grads = tape.gradient(loss, model.trainable_variables)
optimizer.apply_gradients(zip(grads, model.trainable_variables))
checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer, note=tf.Variable("written by TensorFlow"))
print(checkpoint.save(out + "/ckpt"))
